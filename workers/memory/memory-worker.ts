// Runs memory updates (src/memory/memory-queue.ts): reads the turns waiting for the user, asks the
// model for a revision of their memory, and applies it with a compare-and-set, so changes made
// meanwhile through /api/memory are kept. A revision that is not valid JSON in the expected shape
// is logged and ignored. Either way the turns read are forgotten (memory is best effort, as in
// DeerFlow); a worker that dies mid-update leaves them, and BullMQ gives the job to another.
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { MemoryConfig } from '../../src/config/app-config.schemas.js';
import type { MemoryDocument } from '../../src/memory/memory.js';
import { applyRevision, parseRevision } from '../../src/memory/memory.js';
import { checkMessage } from '../../src/queue/message.js';
import { MemoryUpdateJobSchema, memoryQueueName, type MemoryUpdateJob, type MemoryUpdateQueue } from '../../src/memory/memory.js';
import { keys } from '../../src/store/keys.js';
import type { MemoryStore } from '../../src/memory/memory.js';
import type { MemoryTurn, MemoryTurnStore } from '../../src/memory/memory.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';

/** How long one update's model call may take. */
const UPDATE_TIMEOUT_MS = 120_000;

export interface MemoryWorkerOptions {
  runQueueName: string;
  connection: ConnectionOptions;
  memory: MemoryStore;
  turns: MemoryTurnStore;
  queue: Pick<MemoryUpdateQueue, 'queueIfWaiting'>;
  settings: MemoryConfig;
  /** The model's answer (text) to the update prompt for this memory and these turns. */
  askModel: (memory: MemoryDocument, turns: readonly MemoryTurn[], signal: AbortSignal) => Promise<string>;
  log: Logger;
}

export async function startMemoryWorker(options: MemoryWorkerOptions): Promise<{ close(force?: boolean): Promise<void> }> {
  const { memory, turns, settings, log } = options;

  const update = async (userId: string, signal: AbortSignal) => {
    const waiting = await turns.waiting(userId);
    if (waiting.length === 0) return;
    const threadIds = [...new Set(waiting.map((w) => w.turn.thread_id))];
    try {
      const answer = await options.askModel(await memory.read(userId), waiting.map((w) => w.turn), signal);
      const revision = parseRevision(answer);
      if (!revision) {
        log.warn({ user_id: userId, answer: answer.slice(0, 500) }, 'memory update ignored: the model did not answer a revision');
        return;
      }
      const revised = await memory.change(userId, (current) =>
        applyRevision(current, revision, {
          maxFacts: settings.max_facts,
          confidenceThreshold: settings.fact_confidence_threshold,
          threadIds,
          now: new Date().toISOString(),
        }),
      );
      log.info({ user_id: userId, turns: waiting.length, threads: threadIds.length, facts: revised.facts.length }, 'memory updated');
    } catch (err) {
      log.warn({ err, user_id: userId, turns: waiting.length }, 'memory update failed; its turns are dropped');
    } finally {
      await turns.forget(userId, waiting);
    }
  };

  const processor = async (job: Job<MemoryUpdateJob, void>, _token?: string, signal?: AbortSignal) => {
    const { user_id: userId, token } = checkMessage(MemoryUpdateJobSchema, job.data, 'InvalidMemoryJob', 'memory update job');
    const timeout = AbortSignal.timeout(UPDATE_TIMEOUT_MS);
    try {
      await update(userId, signal ? AbortSignal.any([signal, timeout]) : timeout);
    } finally {
      await turns.release(userId, token);
      // Turns that ended while this update ran wait for the next one.
      await options.queue.queueIfWaiting(userId);
    }
  };

  const worker = new Worker<MemoryUpdateJob, void>(memoryQueueName(options.runQueueName), processor, {
    connection: options.connection,
    prefix: bullPrefixFor(options.connection, memoryQueueName(options.runQueueName)),
    concurrency: 4,
  });
  worker.on('error', connectionErrorLog(log, { worker: 'memory' }).error);
  return { close: (force = false) => worker.close(force) };
}
