// A worker's hold on the runs it executes, kept on each run's record (`lease_until`) apart from
// BullMQ's job lock. Both lapse in an outage longer than the lock: BullMQ's cannot be taken back
// once its stalled check has moved the job, but the run's hold can, by the attempt that claimed
// it, as long as no other worker has claimed the run since (renew-run-lease-1.lua). Other
// workers' claims defer to a live hold, and to one that lapsed while Redis itself was down for a
// grace after it restarts (start-run-3.lua). So a worker cut off from Redis keeps executing its
// runs, its writes waiting for Redis, and goes on once Redis is back: up to `holdMs` of outage.
// Past that it gives its runs up (they are stopped as lost, their buffered writes dropped), and
// after the outage another worker takes them over from their last checkpoint.
import type { Logger } from 'pino';
import type { RunFence } from '../../src/store/records.js';
import type { RunStore } from '../../src/store/runs.js';
import { isFenceRefusal } from '../../src/store/script-errors.js';

export interface RunLeaseSettings {
  /** How long a hold lasts without renewal; it is renewed every third of it. */
  leaseMs: number;
  /** How long a run is kept while its hold cannot be renewed (Redis away): the longest outage a run survives. */
  holdMs: number;
}

interface Hold {
  fence: RunFence;
  /** Stops the run as lost. */
  stop: () => void;
  /** When the hold was last renewed (or taken), ms since the epoch. */
  renewedAt: number;
  /** The renewal in flight (it waits for Redis while Redis is away), if any. */
  renewing: Promise<boolean> | null;
}

export class RunLeases {
  /** The holds of the runs this process executes, by run id; each leaves when its run ends. */
  private readonly holds = new Map<string, Hold>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly runs: Pick<RunStore, 'renewLease'>,
    private readonly settings: RunLeaseSettings,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => this.tick(), Math.max(50, settings.leaseMs / 3));
    this.timer.unref();
  }

  /** Keeps the claimed run's hold until the returned function is called; `stop` ends the run as lost. */
  hold(fence: RunFence, stop: () => void): () => void {
    const hold: Hold = { fence, stop, renewedAt: Date.now(), renewing: null };
    this.holds.set(fence.runId, hold);
    return () => {
      if (this.holds.get(fence.runId) === hold) this.holds.delete(fence.runId);
    };
  }

  /**
   * Renews the run's hold now (its job lock was found lapsed: Redis is back after an outage);
   * true while this worker still holds the run. A run another attempt holds is stopped.
   */
  renewNow(runId: string): Promise<boolean> {
    const hold = this.holds.get(runId);
    return hold ? this.renew(hold) : Promise.resolve(false);
  }

  /** How long a pick-up of a run this worker still executes waits before it is looked at again. */
  get parkMs(): number {
    return this.settings.leaseMs;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = Date.now();
    for (const hold of this.holds.values()) {
      if (now - hold.renewedAt > this.settings.holdMs) this.giveUp(hold, now);
      else void this.renew(hold);
    }
  }

  private renew(hold: Hold): Promise<boolean> {
    hold.renewing ??= this.runs.renewLease(hold.fence, this.settings.leaseMs).then(
      (held) => {
        hold.renewing = null;
        const now = Date.now();
        const lapsedMs = now - hold.renewedAt - this.settings.leaseMs;
        // A run settled or handed back meanwhile has nothing left to hold; its executor releases it.
        if (!held || this.holds.get(hold.fence.runId) !== hold) return held;
        if (lapsedMs > 0) this.log.info({ run_id: hold.fence.runId, run_attempt: hold.fence.attempt, lapsed_ms: lapsedMs }, 'run re-taken after its hold lapsed (Redis was away); it goes on here');
        hold.renewedAt = now;
        return true;
      },
      (err: unknown) => {
        hold.renewing = null;
        if (!isFenceRefusal(err)) return false; // Redis away: the next tick tries again, until holdMs.
        if (this.holds.get(hold.fence.runId) === hold) {
          this.holds.delete(hold.fence.runId);
          this.log.warn({ run_id: hold.fence.runId, run_attempt: hold.fence.attempt }, 'another attempt holds the run; stopping it here');
          hold.stop();
        }
        return false;
      },
    );
    return hold.renewing;
  }

  private giveUp(hold: Hold, now: number): void {
    this.holds.delete(hold.fence.runId);
    this.log.warn({ run_id: hold.fence.runId, run_attempt: hold.fence.attempt, unrenewed_ms: now - hold.renewedAt }, 'run given up: its hold could not be renewed for longer than the outage a run survives');
    hold.stop();
  }
}
