// The runs one worker process executes at once, over all of its run queues' Workers (the shards
// of a Redis Cluster, see run-queue.ts): any queue may use every free slot, and together they
// never execute more than the limit. Each Worker's own concurrency only bounds how many jobs it
// fetches ahead: its runs plus the free slots, so a freed slot draws a few fetches, not one
// Worker's worth each. When every slot is taken the Workers are paused, so none fetches at all;
// a blocking fetch already under way can still bring a job, which the processor hands back (see
// `take`).
//
// What pausing costs (BullMQ 6.7.0): `pause(true)` lets running jobs go on and keeps renewing
// their locks, but stops that Worker's stalled-job checker until `resume()` restarts it. While
// this process is full, other processes' checkers still move a dead worker's jobs back; when
// every process is full, no one could take them anyway.
import type { Worker } from 'bullmq';

/** What a slot gives back; releasing more than once gives it back once. */
export interface RunSlot {
  release(): void;
}

/** The part of a BullMQ Worker the slots steer. */
export type SlotWorker = Pick<Worker, 'name' | 'concurrency' | 'pause' | 'resume' | 'isPaused' | 'isRunning' | 'emit'>;

export class RunSlots {
  private taken = 0;
  /** Slots taken by each Worker's runs, by queue name. */
  private readonly held = new Map<string, number>();
  private full = false;
  private closed = false;

  constructor(
    readonly limit: number,
    private readonly workers: readonly SlotWorker[],
  ) {
    for (const worker of workers) this.held.set(worker.name, 0);
    this.steer();
  }

  /** Runs executing now. */
  get running(): number {
    return this.taken;
  }

  /**
   * A slot for a run of `queueName`'s Worker, or null when every slot is taken: the job came
   * from a fetch under way when the last slot went, and must go back to its queue untouched.
   */
  take(queueName: string): RunSlot | null {
    if (this.taken >= this.limit) return null;
    this.count(queueName, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.count(queueName, -1);
      },
    };
  }

  /** Stops steering: the Workers are closing, and a run ending now must not wake them. */
  close(): void {
    this.closed = true;
  }

  private count(queueName: string, change: 1 | -1): void {
    this.taken += change;
    this.held.set(queueName, (this.held.get(queueName) ?? 0) + change);
    this.steer();
  }

  private steer(): void {
    if (this.closed) return;
    const free = this.limit - this.taken;
    for (const worker of this.workers) worker.concurrency = Math.max(1, (this.held.get(worker.name) ?? 0) + free);
    if (free === 0 && !this.full) {
      this.full = true;
      // pause(true) leaves running jobs be; anything it throws goes where the Worker's errors go.
      for (const worker of this.workers) worker.pause(true).catch((err: unknown) => worker.emit('error', err instanceof Error ? err : new Error(String(err))));
    } else if (free > 0 && this.full) {
      this.full = false;
      for (const worker of this.workers) this.wake(worker);
    }
  }

  private wake(worker: SlotWorker): void {
    // resume() reports its own errors as 'error' events.
    void worker.resume();
    // BullMQ 6.7.0's resume() restarts a main loop that has ended and wakes one still running.
    // A loop ending in this very tick (paused, nothing left in hand) is neither: it would stay
    // ended, unpaused. Look once more when the tick is over.
    setImmediate(() => {
      if (!this.closed && !this.full && !worker.isPaused() && !worker.isRunning()) void worker.resume();
    });
  }
}
