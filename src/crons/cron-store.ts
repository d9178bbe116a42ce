// CronStore: cron records and their indexes (all, by assistant, by thread). Knows Redis, not
// HTTP or BullMQ. A record is one hash field holding JSON; a change is a compare-and-set on it
// (replace-hash-field-1.lua), so two replicas patching one cron never lose a change.
import type { RedisClient } from '../store/redis.js';
import { ANONYMOUS_USER } from '../auth/identity.js';
import { keys } from '../store/keys.js';
import { jsonReader, type OnDamagedRecord } from '../store/json.js';
import type { StoredCron } from '../store/records.js';
import { requireScript, type ScriptCaller } from '../store/scripts.js';
import { CronContendedError } from './crons.errors.js';

export interface CronStore {
  create(cron: StoredCron): Promise<void>;
  get(cronId: string): Promise<StoredCron | null>;
  /**
   * Applies `change` to the record as read, again when another writer got in between; null when
   * the cron does not exist (or went away meanwhile).
   */
  update(cronId: string, change: (current: StoredCron) => StoredCron): Promise<StoredCron | null>;
  /** False when there was no such cron. */
  remove(cronId: string): Promise<boolean>;
  /** The last tick (ms) whose run, and every earlier tick's, is known to exist; null before the first (then every tick since `created_at` is owed). */
  lastTick(cronId: string): Promise<number | null>;
  /** Records that every tick up to `tickMs` has its run (or must not have one: a re-enabled cron). Never moves back. */
  raiseLastTick(cronId: string, tickMs: number): Promise<void>;
  /** The crons of the narrowest index the filter names (`owner`: their own index), oldest first. */
  list(filter: { assistantId?: string; threadId?: string; owner?: string }): Promise<StoredCron[]>;
  /** Whether the cron exists, and whose it is (null: from before owners existed, the anonymous user's). */
  ownership(cronId: string): Promise<{ owner: string | null; exists: boolean }>;
  /** Notes a run the cron started, at its tick (or manual trigger) time; noting it again changes nothing. Only onto an existing cron. */
  noteRun(cronId: string, run: CronRunRef, atMs: number): Promise<void>;
  /** The runs the cron started, newest first, and how many there are. */
  runs(cronId: string, page: { offset: number; limit: number }): Promise<{ runs: CronRunRef[]; total: number }>;
}

/** Where a run a cron started lives. */
export interface CronRunRef {
  thread_id: string;
  run_id: string;
}

const RECORD = 'record';
const LAST_TICK = 'last_tick';
const OWNER = 'owner';
/** Lost compare-and-sets in a row before giving up (each one means another write landed). */
const MAX_ATTEMPTS = 20;
/** Runs a cron's list keeps (the latest ones). */
export const MAX_NOTED_RUNS = 10_000;

/** Whose a cron is: its `user_id` (LangGraph's field), the anonymous user's when it has none. */
export const cronOwner = (cron: Pick<StoredCron, 'user_id'>): string => cron.user_id ?? ANONYMOUS_USER;

export function createCronStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, onDamaged: OnDamagedRecord): CronStore {
  const replaceScript = requireScript(scripts, 'replaceHashField');
  const raiseScript = requireScript(scripts, 'raiseHashField');
  const json = jsonReader(onDamaged);
  const recordOf = (cronId: string, raw: string | null) => json<StoredCron | null>(raw, null, `${keys.cron(cronId)}#${RECORD}`);
  const indexesOf = (cron: StoredCron): string[] => [
    keys.cronIndex(),
    keys.assistantCrons(cron.assistant_id),
    ...(cron.thread_id ? [keys.threadCrons(cron.thread_id)] : []),
    keys.ownerIndex(cronOwner(cron), 'crons'),
  ];
  const read = async (cronId: string) => {
    const raw = await redis.hget(keys.cron(cronId), RECORD);
    return raw === null ? null : { raw, cron: recordOf(cronId, raw) };
  };

  return {
    async create(cron) {
      await redis.hset(keys.cron(cron.cron_id), RECORD, JSON.stringify(cron), OWNER, cronOwner(cron));
      const score = Date.parse(cron.created_at);
      for (const index of indexesOf(cron)) await redis.zadd(index, score, cron.cron_id);
    },

    get: async (cronId) => (await read(cronId))?.cron ?? null,

    async update(cronId, change) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await read(cronId);
        if (!current?.cron) return null;
        const next = change(current.cron);
        if (Number(await replaceScript([keys.cron(cronId)], [RECORD, current.raw, JSON.stringify(next)])) === 1) return next;
      }
      throw new CronContendedError(`cron ${cronId}: ${MAX_ATTEMPTS} concurrent changes in a row`);
    },

    async remove(cronId) {
      const cron = (await read(cronId))?.cron;
      if (!cron) return false;
      for (const index of indexesOf(cron)) await redis.zrem(index, cronId);
      await redis.del(keys.cronRuns(cronId));
      return (await redis.del(keys.cron(cronId))) === 1;
    },

    async lastTick(cronId) {
      const raw = await redis.hget(keys.cron(cronId), LAST_TICK);
      return raw === null ? null : Number(raw);
    },

    async raiseLastTick(cronId, tickMs) {
      // Only onto an existing record: a tick finishing after its cron's deletion leaves nothing behind.
      if ((await redis.hexists(keys.cron(cronId), RECORD)) === 1) await raiseScript([keys.cron(cronId)], [LAST_TICK, tickMs]);
    },

    async ownership(cronId) {
      const [owner, exists] = await redis.hmget(keys.cron(cronId), OWNER, RECORD);
      return { owner: owner ?? null, exists: exists !== null };
    },

    async noteRun(cronId, run, atMs) {
      // A tick finishing after its cron's deletion leaves nothing behind (as raiseLastTick).
      if ((await redis.hexists(keys.cron(cronId), RECORD)) !== 1) return;
      await redis.zadd(keys.cronRuns(cronId), atMs, JSON.stringify({ thread_id: run.thread_id, run_id: run.run_id }));
      // A cron firing every second for a year would otherwise keep 31 million of them.
      await redis.zremrangebyrank(keys.cronRuns(cronId), 0, -MAX_NOTED_RUNS - 1);
    },

    async runs(cronId, { offset, limit }) {
      const [members, total] = await Promise.all([redis.zrevrange(keys.cronRuns(cronId), offset, offset + limit - 1), redis.zcard(keys.cronRuns(cronId))]);
      const runs = members.map((m) => json<CronRunRef | null>(m, null, `${keys.cronRuns(cronId)}#${m}`)).filter((r): r is CronRunRef => r !== null);
      return { runs, total };
    },

    async list({ assistantId, threadId, owner }) {
      const index =
        owner !== undefined ? keys.ownerIndex(owner, 'crons') : threadId ? keys.threadCrons(threadId) : assistantId ? keys.assistantCrons(assistantId) : keys.cronIndex();
      const ids = await redis.zrange(index, 0, -1);
      if (ids.length === 0) return [];
      // Each cron is its own slot: one HGET each, sent together.
      const records = await Promise.all(ids.map(async (id) => recordOf(id, await redis.hget(keys.cron(id), RECORD))));
      return records.filter((c): c is StoredCron => c !== null && (!assistantId || c.assistant_id === assistantId) && (!threadId || c.thread_id === threadId));
    },
  };
}
