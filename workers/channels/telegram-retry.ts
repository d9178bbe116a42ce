// Calls to the Bot API that must get through: a platform outage (no answer, 5xx, 429) is waited
// out with backoff (Telegram's `retry_after` when it gives one) until the connection is dropped.
import type { Logger } from 'pino';
import { doublingBackoffMs, retryUntilDone, type RetryPolicy } from './retry.js';
import { TelegramError } from './telegram-api.js';

/** The wait before try `attempt` (from 1): doubling from 500 ms, or what a 429 asked for. */
export function backoffMs(attempt: number, err: unknown): number {
  if (err instanceof TelegramError && err.retryAfter !== null) return err.retryAfter * 1000;
  return doublingBackoffMs(attempt);
}

/** Whether trying again may succeed: a transient Telegram failure, or anything not Telegram's (Redis away). */
export const isRetryable = (err: unknown): boolean => !(err instanceof TelegramError) || err.transient;

const policy: RetryPolicy = { platform: 'telegram', retryable: isRetryable, waitMs: backoffMs };

/**
 * Runs `task` until it succeeds, the error is not retryable (thrown), or `signal` aborts (its
 * reason thrown).
 */
export const untilDone = <T>(task: () => Promise<T>, signal: AbortSignal, log: Logger, what: string): Promise<T> => retryUntilDone(policy, task, signal, log, what);
