// Calls to the Feishu open platform that must get through: an outage (no answer, 5xx, a rate
// limit, a token to renew) is waited out with backoff until the connection is dropped.
import type { Logger } from 'pino';
import { FeishuError } from './feishu-api.js';
import { doublingBackoffMs, retryUntilDone, type RetryPolicy } from './retry.js';

/** Whether trying again may succeed: a transient Feishu failure, or anything not Feishu's (Redis away). */
export const isRetryable = (err: unknown): boolean => !(err instanceof FeishuError) || err.transient;

const policy: RetryPolicy = { platform: 'feishu', retryable: isRetryable, waitMs: doublingBackoffMs };

export const untilDone = <T>(task: () => Promise<T>, signal: AbortSignal, log: Logger, what: string): Promise<T> => retryUntilDone(policy, task, signal, log, what);
