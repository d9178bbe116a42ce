// Calls to a chat platform that must get through, whatever the platform: an outage is waited out
// with backoff until the call succeeds, fails for good, or the connection is dropped. Each
// platform says which of its failures are worth trying again and how long they ask to wait.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';

export interface RetryPolicy {
  /** The platform's name, for the log. */
  platform: string;
  /** Whether trying again may succeed. */
  retryable(err: unknown): boolean;
  /** The wait before try `attempt` (from 2) after `err`. */
  waitMs(attempt: number, err: unknown): number;
}

const MAX_BACKOFF_MS = 30_000;

/** Doubling from 500 ms up to 30 s: the wait when the platform names none. */
export const doublingBackoffMs = (attempt: number): number => Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt - 1, 6));

/** Runs `task` until it succeeds, the error is not retryable (thrown), or `signal` aborts (its reason thrown). */
export async function retryUntilDone<T>(policy: RetryPolicy, task: () => Promise<T>, signal: AbortSignal, log: Logger, what: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    try {
      return await task();
    } catch (err) {
      if (signal.aborted || !policy.retryable(err)) throw err;
      const waitMs = policy.waitMs(attempt, err);
      log.warn({ err, attempt, wait_ms: waitMs }, `${policy.platform}: ${what} failed; trying again`);
      await delay(waitMs, undefined, { signal });
    }
  }
}
