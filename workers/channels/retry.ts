// Calls to a chat platform that must get through: an outage (no answer, 5xx, a rate limit) is
// waited out with backoff (the platform's own wait when it names one: Telegram's `retry_after`,
// Slack's `Retry-After`) until the connection is dropped. Each platform says which of its errors
// are worth another try; anything not the platform's (Redis away) always is.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';

const MAX_BACKOFF_MS = 30_000;

/** What a platform's errors mean for trying again. */
export interface PlatformFailures {
  /** The platform's name, for log lines. */
  name: string;
  /** The error is the platform's own (a refusal or an outage), as opposed to ours. */
  isPlatformError(err: unknown): boolean;
  /** A platform error that may pass: no answer, a 5xx, a rate limit. */
  transient(err: unknown): boolean;
  /** How long the platform asked to wait (a rate limit), in milliseconds; null when it did not. */
  retryAfterMs(err: unknown): number | null;
}

/** A failure of ours that trying again will not change (a file over the limit). */
export class RefusedError extends Error {
  override name = 'RefusedError';
}

export function createRetry(failures: PlatformFailures) {
  /** The wait before try `attempt` (from 1): doubling from 500 ms, or what the platform asked for. */
  const backoffMs = (attempt: number, err: unknown): number =>
    failures.retryAfterMs(err) ?? Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt - 1, 6));

  /** Whether trying again may succeed: a transient platform failure, or anything else not refused for good. */
  const isRetryable = (err: unknown): boolean => !(err instanceof RefusedError) && (!failures.isPlatformError(err) || failures.transient(err));

  /**
   * Runs `task` until it succeeds, the error is not retryable (thrown), or `signal` aborts (its
   * reason thrown).
   */
  async function untilDone<T>(task: () => Promise<T>, signal: AbortSignal, log: Logger, what: string): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      try {
        return await task();
      } catch (err) {
        if (signal.aborted || !isRetryable(err)) throw err;
        const waitMs = backoffMs(attempt, err);
        log.warn({ err, attempt, wait_ms: waitMs }, `${failures.name}: ${what} failed; trying again`);
        await delay(waitMs, undefined, { signal });
      }
    }
  }

  return { backoffMs, isRetryable, untilDone, retryAfterMs: failures.retryAfterMs };
}

export type Retry = ReturnType<typeof createRetry>;
