// Calls to the Bot API that must get through: a platform outage (no answer, 5xx, 429) is waited
// out with backoff (Telegram's `retry_after` when it gives one) until the connection is dropped.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { TelegramError } from './telegram-api.js';

const MAX_BACKOFF_MS = 30_000;

/** The wait before try `attempt` (from 1): doubling from 500 ms, or what a 429 asked for. */
export function backoffMs(attempt: number, err: unknown): number {
  if (err instanceof TelegramError && err.retryAfter !== null) return err.retryAfter * 1000;
  return Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt - 1, 6));
}

/** Whether trying again may succeed: a transient Telegram failure, or anything not Telegram's (Redis away). */
export const isRetryable = (err: unknown): boolean => !(err instanceof TelegramError) || err.transient;

/**
 * Runs `task` until it succeeds, the error is not retryable (thrown), or `signal` aborts (its
 * reason thrown).
 */
export async function untilDone<T>(task: () => Promise<T>, signal: AbortSignal, log: Logger, what: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    try {
      return await task();
    } catch (err) {
      if (signal.aborted || !isRetryable(err)) throw err;
      const waitMs = backoffMs(attempt, err);
      log.warn({ err, attempt, wait_ms: waitMs }, `telegram: ${what} failed; trying again`);
      await delay(waitMs, undefined, { signal });
    }
  }
}
