// ThreadStore: thread records and the thread index. Knows Redis, not HTTP.
import type { RedisClient } from './redis.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { keys } from './keys.js';
import { matchesFilter, parseJson } from './json.js';
import { nowIso, type Thread, type ThreadStatus } from './records.js';
import { requireScript, type ScriptCaller } from './scripts.js';

export interface ThreadSearch {
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  status?: ThreadStatus;
  ids?: string[];
  limit: number;
  offset: number;
  sort_by: 'thread_id' | 'status' | 'created_at' | 'updated_at';
  sort_order: 'asc' | 'desc';
}

export interface ThreadStore {
  create(input: { threadId: string; metadata: Record<string, unknown>; ifExists: 'raise' | 'do_nothing' }): Promise<Thread>;
  get(threadId: string): Promise<Thread | null>;
  require(threadId: string): Promise<Thread>;
  patchMetadata(threadId: string, metadata: Record<string, unknown>): Promise<Thread>;
  setValues(threadId: string, values: Record<string, unknown>, interrupts?: Record<string, unknown>): Promise<void>;
  setStatus(threadId: string, status: ThreadStatus): Promise<void>;
  /** Re-scores the thread in the index after its record changed. */
  touch(threadId: string): Promise<void>;
  remove(threadId: string): Promise<boolean>;
  search(query: ThreadSearch): Promise<{ threads: Thread[]; total: number }>;
}

export function threadFromHash(hash: Record<string, string>): Thread | null {
  if (!hash.thread_id) return null;
  return {
    thread_id: hash.thread_id,
    created_at: hash.created_at ?? '',
    updated_at: hash.updated_at ?? hash.created_at ?? '',
    metadata: parseJson(hash.metadata, {}),
    status: (hash.status as ThreadStatus) ?? 'idle',
    values: parseJson(hash.values, null),
    interrupts: parseJson(hash.interrupts, {}),
  };
}

export function createThreadStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): ThreadStore {
  const createScript = requireScript(scripts, 'createThread');

  const get = async (threadId: string): Promise<Thread | null> => threadFromHash(await redis.hgetall(keys.thread(threadId)));
  const require = async (threadId: string): Promise<Thread> => {
    const thread = await get(threadId);
    if (!thread) throw new NotFoundError(`Thread ${threadId} not found`);
    return thread;
  };
  const touch = async (threadId: string): Promise<void> => {
    const updated = await redis.hget(keys.thread(threadId), 'updated_at');
    if (updated) await redis.zadd(keys.threadIndex(), Date.parse(updated), threadId);
  };

  return {
    get,
    require,
    touch,

    async create({ threadId, metadata, ifExists }) {
      const now = nowIso();
      const result = Number(await createScript([keys.thread(threadId)], [threadId, now, JSON.stringify(metadata), ifExists]));
      if (result === -1) throw new ConflictError(`Thread ${threadId} already exists`);
      if (result === 1) await redis.zadd(keys.threadIndex(), Date.parse(now), threadId);
      return require(threadId);
    },

    async patchMetadata(threadId, metadata) {
      const thread = await require(threadId);
      const merged = { ...thread.metadata, ...metadata };
      await redis.hset(keys.thread(threadId), 'metadata', JSON.stringify(merged), 'updated_at', nowIso());
      await touch(threadId);
      return require(threadId);
    },

    async setValues(threadId, values, interrupts) {
      const fields: string[] = ['values', JSON.stringify(values), 'updated_at', nowIso()];
      if (interrupts) fields.push('interrupts', JSON.stringify(interrupts));
      // HSET on a deleted thread would resurrect a half record: only update one that exists.
      if (await redis.exists(keys.thread(threadId))) {
        await redis.hset(keys.thread(threadId), ...fields);
        await touch(threadId);
      }
    },

    async setStatus(threadId, status) {
      if (await redis.exists(keys.thread(threadId))) {
        await redis.hset(keys.thread(threadId), 'status', status, 'updated_at', nowIso());
        await touch(threadId);
      }
    },

    async remove(threadId) {
      const removed = await redis.del(keys.thread(threadId));
      await redis.zrem(keys.threadIndex(), threadId);
      return removed > 0;
    },

    async search(query) {
      // The index gives updated_at order cheaply; other filters and sorts read the records.
      // Fine to hundreds of thousands of threads; a secondary index per metadata key would be next.
      const ids = query.ids ?? (await redis.zrevrange(keys.threadIndex(), 0, -1));
      // Threads live on different slots: one HGETALL each, sent together (auto-pipelined into
      // one batch on a single Redis; on a Cluster each written at once to its node).
      const replies = await Promise.all(ids.map((id) => redis.hgetall(keys.thread(id))));
      const threads: Thread[] = [];
      for (const hash of replies) {
        const thread = threadFromHash(hash);
        if (!thread) continue;
        if (query.status && thread.status !== query.status) continue;
        if (query.metadata && !matchesFilter(thread.metadata, query.metadata)) continue;
        if (query.values && !matchesFilter(thread.values ?? {}, query.values)) continue;
        threads.push(thread);
      }
      const dir = query.sort_order === 'asc' ? 1 : -1;
      const key = query.sort_by;
      threads.sort((a, b) => (a[key] < b[key] ? -dir : a[key] > b[key] ? dir : 0));
      return { threads: threads.slice(query.offset, query.offset + query.limit), total: threads.length };
    },
  };
}
