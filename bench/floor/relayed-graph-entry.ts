// Child-process entry of the relayed floor's graph process (its "worker"): the least Warren's
// design asks of a worker, and nothing more. A run is taken from a Redis list onto this
// process's own list in one move (a crash leaves it there, not lost); the take bumps the run's
// attempt, and every later write of the run goes through a script that checks that attempt
// first (fenced: an attempt that lost the run writes nothing); each event is appended to the
// run's stream, which any API process relays and resumes; each checkpoint and task's writes are
// kept in Redis before the next step; the last script settles the run and drops it from this
// process's list. No leases, retries, run records, metrics or BullMQ: see the bench README.
import { randomUUID } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import { BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata, type CheckpointTuple, type PendingWrite } from '@langchain/langgraph-checkpoint';
import { Redis } from 'ioredis';
import { chatGraph } from '../graph/chat-graph.ts';
import { RELAYED_END_EVENT, RELAYED_RUNS_KEY, relayedAttemptKey, relayedCheckpointsKey, relayedStreamKey, relayedTakenKey, type RelayedJob } from './relayed-keys.ts';
import { wireJson } from './served-http.ts';

const { redisUrl, slots } = JSON.parse(process.argv.at(-1) ?? '{}') as { redisUrl: string; slots: number };
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
const intake = new Redis(redisUrl);
const taken = relayedTakenKey(randomUUID());

// KEYS[1] the run's attempt, ARGV[1] the attempt writing. Each script starts with this check.
const FENCE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('FENCED attempt ' .. ARGV[1]) end`;
const SCRIPTS = {
  // KEYS[2] the run's stream; ARGV[2..] event, data pairs.
  appendEvents: `${FENCE} for i = 2, #ARGV, 2 do redis.call('XADD', KEYS[2], '*', 'event', ARGV[i], 'data', ARGV[i + 1]) end return 1`,
  // KEYS[2] the thread's checkpoints; ARGV[2..] field, value pairs.
  keepFields: `${FENCE} redis.call('HSET', KEYS[2], unpack(ARGV, 2)) return 1`,
  // KEYS[2] the run's stream, KEYS[3] this process's taken runs; ARGV[2] the end event, ARGV[3] the job, ARGV[4] the stream's TTL.
  settle: `${FENCE} redis.call('XADD', KEYS[2], '*', 'event', ARGV[2], 'data', '') redis.call('EXPIRE', KEYS[2], ARGV[4]) redis.call('LREM', KEYS[3], 1, ARGV[3]) return 1`,
};
for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: name === 'settle' ? 3 : 2, lua });
type Script = (...args: (string | Buffer | number)[]) => Promise<unknown>;
const scripts = redis as unknown as Record<keyof typeof SCRIPTS, Script>;

/** What a run's writes are fenced by: its attempt key and the attempt its take got. */
interface Fence {
  key: string;
  attempt: string;
}

/**
 * Checkpoints and task writes stored in Redis through the fence (serialised once, awaited, as
 * `durability: sync` does); the newest checkpoint of each thread this process wrote is also kept
 * in memory, which is all a graph on a new thread reads back.
 */
class RedisKeptSaver extends BaseCheckpointSaver {
  private readonly newest = new Map<string, CheckpointTuple>();
  readonly fences = new Map<string, Fence>();

  private keep(threadId: string, fields: (string | Buffer)[]): Promise<unknown> {
    const fence = this.fences.get(threadId);
    if (!fence) throw new Error(`no run holds thread ${threadId}`);
    return scripts.keepFields(fence.key, relayedCheckpointsKey(threadId), fence.attempt, ...fields);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.newest.get(String(config.configurable?.thread_id));
  }

  async *list(): AsyncGenerator<CheckpointTuple> {}

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const threadId = String(config.configurable?.thread_id);
    const [[, body], [, meta]] = await Promise.all([this.serde.dumpsTyped(checkpoint), this.serde.dumpsTyped(metadata)]);
    await this.keep(threadId, [checkpoint.id, Buffer.from(body), `${checkpoint.id}:metadata`, Buffer.from(meta)]);
    const stored = { configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpoint.id } };
    this.newest.set(threadId, { config: stored, checkpoint, metadata, pendingWrites: [] });
    return stored;
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const threadId = String(config.configurable?.thread_id);
    const fields: (string | Buffer)[] = [];
    for (const [i, [channel, value]] of writes.entries()) {
      const [, bytes] = await this.serde.dumpsTyped(value);
      fields.push(`${config.configurable?.checkpoint_id}:${taskId}:${i}:${channel}`, Buffer.from(bytes));
    }
    if (fields.length > 0) await this.keep(threadId, fields);
  }

  async deleteThread(threadId: string): Promise<void> {
    this.newest.delete(threadId);
    await redis.del(relayedCheckpointsKey(threadId));
  }
}

const saver = new RedisKeptSaver();
chatGraph.checkpointer = saver;

/** Appends a run's events in order, one batch in flight: what arrives meanwhile goes in the next. */
function appender(key: string, fence: Fence): { add(event: string, data: string): void; drain(): Promise<void> } {
  let queued: string[] = [];
  let flushing: Promise<void> | null = null;
  const flush = async (): Promise<void> => {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      await scripts.appendEvents(fence.key, key, fence.attempt, ...batch);
    }
    flushing = null;
  };
  return {
    add(event, data) {
      queued.push(event, data);
      flushing ??= flush();
    },
    drain: async () => {
      while (flushing) await flushing;
    },
  };
}

async function run(jobText: string): Promise<void> {
  const job = JSON.parse(jobText) as RelayedJob;
  const key = relayedStreamKey(job.runId);
  // The take: this attempt is the run's from now on, and an older one's writes are refused.
  const fence = { key: relayedAttemptKey(job.runId), attempt: String(await redis.incr(relayedAttemptKey(job.runId))) };
  saver.fences.set(job.threadId, fence);
  const events = appender(key, fence);
  const config = { configurable: { ...job.configurable, thread_id: job.threadId }, streamMode: ['values', 'messages'] as ('values' | 'messages')[], durability: 'sync' as const };
  try {
    for await (const [mode, chunk] of await chatGraph.stream(job.input as Parameters<typeof chatGraph.stream>[0], config)) {
      events.add(mode, wireJson(chunk));
    }
  } catch (err) {
    events.add('error', JSON.stringify({ message: String(err) }));
  }
  await events.drain();
  // A finished run's stream stays readable for a while (late joiners), then goes.
  await scripts.settle(fence.key, key, taken, fence.attempt, RELAYED_END_EVENT, jobText, 300);
  saver.fences.delete(job.threadId);
}

let running = 0;
let slotFreed: (() => void) | null = null;
async function take(): Promise<void> {
  for (;;) {
    if (running >= slots) await new Promise<void>((resolve) => (slotFreed = resolve));
    const jobText = await intake.blmove(RELAYED_RUNS_KEY, taken, 'RIGHT', 'LEFT', 0);
    if (jobText === null) continue;
    running++;
    // A run whose write was refused (fenced) or failed stops there, unsettled: its client waits
    // until the level's deadline, which counts it as an error.
    void run(jobText)
      .catch((err: unknown) => process.stderr.write(`relayed floor: run failed: ${String(err)}\n`))
      .finally(() => {
        running--;
        slotFreed?.();
        slotFreed = null;
      });
  }
}

process.on('SIGTERM', () => {
  intake.disconnect();
  redis.disconnect();
  process.exit(0);
});
process.send?.({ ready: true });
void take().catch(() => {});
