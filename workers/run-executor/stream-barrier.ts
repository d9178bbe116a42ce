// Keeps a run's stream ahead of its checkpoints. The graph runs ahead of the loop that appends
// its chunks to Redis; if a worker died after a step's checkpoint was stored but before that
// step's events were appended, the resumed run would skip them and clients would lose events.
// So a checkpoint write first waits until every chunk produced so far has been appended.
export class StreamBarrier {
  private waitingForNext = false;
  private appending = 0;
  private waiters: (() => void)[] = [];
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

  /** Resolves once the consumer has appended everything the graph has produced. */
  caughtUp(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
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
    if (this.appending === 0 && this.settledWaiters.length > 0) {
      const settled = this.settledWaiters;
      this.settledWaiters = [];
      for (const resolve of settled) resolve();
    }
    if (!this.idle()) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
