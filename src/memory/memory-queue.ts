// The contract for memory updates: after a turn of the lead agent, the user's memory is revised
// by the model in a job of its own, on any worker. The first turn with no update due queues one,
// delayed by `memory.debounce_seconds`; turns until it runs join it (store/memory-turns.ts), so
// several quick turns make one model call. The job carries only the user and its claim token:
// the turns are read from Redis when it runs.
import { randomUUID } from 'node:crypto';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import type { MemoryTurn, MemoryTurnStore } from './memory-turns.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import { dropConnection } from '../queue/run-queue.js';

export const MemoryUpdateJobSchema = Type.Object({
  user_id: Type.String(),
  /** The claim this update holds (store/memory-turns.ts); released when it ends. */
  token: Type.String(),
});
export type MemoryUpdateJob = Static<typeof MemoryUpdateJobSchema>;

export const MEMORY_UPDATE_JOB_NAME = 'memory-update';
export const memoryQueueName = (runQueueName: string): string => `${runQueueName}-memory`;

/**
 * How long a claim stands at most: the debounce, then the update itself. A worker that died
 * holding one has its job retried by BullMQ; only a claim whose job was never queued waits this out.
 */
const CLAIM_SLACK_MS = 10 * 60_000;

export interface MemoryUpdateQueue {
  /** Notes a finished turn, and queues the user's update unless one is due already. */
  turnEnded(userId: string, turn: MemoryTurn): Promise<void>;
  /** After an update: queues the next one if turns came while it ran. */
  queueIfWaiting(userId: string): Promise<void>;
  close(force?: boolean): Promise<void>;
}

export function createMemoryUpdateQueue(
  connection: ConnectionOptions,
  runQueueName: string,
  turns: MemoryTurnStore,
  debounceMs: number,
  log: Logger,
): MemoryUpdateQueue {
  const name = memoryQueueName(runQueueName);
  const queue = new Queue<MemoryUpdateJob, void, typeof MEMORY_UPDATE_JOB_NAME>(name, { connection, prefix: bullPrefixFor(connection, name) });
  queue.on('error', connectionErrorLog(log, { queue: name }).error);
  const claimMs = debounceMs + CLAIM_SLACK_MS;

  const enqueue = async (userId: string, token: string) => {
    await queue.add(
      MEMORY_UPDATE_JOB_NAME,
      { user_id: userId, token },
      { jobId: `memory-${token}`, delay: debounceMs, attempts: 1, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 } },
    );
  };

  return {
    async turnEnded(userId, turn) {
      const token = randomUUID();
      if (await turns.add(userId, turn, token, claimMs)) await enqueue(userId, token);
    },
    async queueIfWaiting(userId) {
      const token = randomUUID();
      if (await turns.claimIfWaiting(userId, token, claimMs)) await enqueue(userId, token);
    },
    close: (force = false) => (force ? dropConnection(queue) : queue.close()),
  };
}
