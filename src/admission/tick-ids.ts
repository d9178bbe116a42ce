// Ids derived from a cron tick, the same in every process: a tick taken twice (a retried job,
// a second scheduler) names the same run, and run creation with an existing id is a no-op.
import { createHash } from 'node:crypto';

/** Warren's namespace for name-based UUIDs (a fixed random UUID). */
const NAMESPACE = Buffer.from('6f1c2b0e9a4d4f57b3e8d2c1a0f9e7b6', 'hex');

/** A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name). */
export function nameUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const tickRunId = (cronId: string, tickMs: number): string => nameUuid(`cron-run:${cronId}:${tickMs}`);
/** A stateless cron's run gets a new thread per tick. */
export const tickThreadId = (cronId: string, tickMs: number): string => nameUuid(`cron-thread:${cronId}:${tickMs}`);
/** A cron's manual trigger (DeerFlow's scheduled-task `trigger`): its own namespace, so it never names a tick's run or thread. */
export const triggerRunId = (cronId: string, triggerId: string): string => nameUuid(`cron-trigger-run:${cronId}:${triggerId}`);
export const triggerThreadId = (cronId: string, triggerId: string): string => nameUuid(`cron-trigger-thread:${cronId}:${triggerId}`);
