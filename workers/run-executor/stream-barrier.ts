// Keeps a run's stream ahead of its checkpoints. The graph runs ahead of the loop that appends
// its chunks to Redis; if a worker died after a step's checkpoint was stored but before that
// step's events were appended, the resumed run would skip them and clients would lose events.
// So a checkpoint write waits until every chunk produced so far has been passed to the writer,
// and goes to Redis behind them on the same connection: Redis runs one connection's commands in
// order, and persists and replicates them in that order, so a stored checkpoint means its events
// are stored (or were refused, and the run fails). While the connection is down, it waits until
// they are stored instead.
export class StreamBarrier {
  private waitingForNext = false;
  private appending = 0;
  private waiters: (() => void)[] = [];
  private consumerWaiters: (() => void)[] = [];
  private settledWaiters: (() => void)[] = [];

  /** Wraps the graph's event stream so the barrier knows when the consumer has caught up. */
  async *track<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = source[Symbol.asyncIterator]();
    try {
      for (;;) {
        this.waitingForNext = true;
        this.release();
        const next = await iterator.next();
        this.waitingForNext = false;
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.waitingForNext = true;
      this.release();
    }
  }

  /** Marks one append in flight; call the returned function when it is stored. */
  appendStarted(): () => void {
    this.appending += 1;
    return () => {
      this.appending -= 1;
      this.release();
    };
  }

  /** Resolves once the consumer has appended everything the graph has produced, and it is stored. */
  caughtUp(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Resolves once everything the graph has produced is on its way to Redis ahead of what the
   * caller sends next: the consumer has passed it all to the writer, and `sendQueued` (the
   * writer's) has sent it. When it cannot (the connection is down), once it is stored.
   */
  async ahead(sendQueued: () => boolean): Promise<void> {
    if (!this.waitingForNext) await new Promise<void>((resolve) => this.consumerWaiters.push(resolve));
    if (!sendQueued()) await this.caughtUp();
  }

  /** Resolves once every append started so far has settled, whether or not the graph still runs. */
  settled(): Promise<void> {
    if (this.appending === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private idle(): boolean {
    return this.waitingForNext && this.appending === 0;
  }

  private release(): void {
    if (this.waitingForNext && this.consumerWaiters.length > 0) resolveAll(this.consumerWaiters.splice(0));
    if (this.appending === 0 && this.settledWaiters.length > 0) resolveAll(this.settledWaiters.splice(0));
    if (this.idle() && this.waiters.length > 0) resolveAll(this.waiters.splice(0));
  }
}

function resolveAll(waiters: readonly (() => void)[]): void {
  for (const resolve of waiters) resolve();
}
