// ThreadStore: thread records and the thread index. Knows Redis, not HTTP.
import type { RedisClient } from './redis.js';
import { matchesMetadataFilter, type MetadataFilter } from './metadata-filter.js';
import { keys } from './keys.js';
import { createOwnerIndex } from './owners.js';
import { jsonReader, matchesFilter, type JsonReader, type OnDamagedRecord } from './json.js';
import { nowIso, type Thread, type ThreadStatus } from './records.js';
import { requireScript, type ScriptCaller } from './scripts.js';
import { ThreadExistsError, ThreadNotFoundError } from './store.errors.js';

export interface ThreadSearch {
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  status?: ThreadStatus;
  ids?: string[];
  limit: number;
  offset: number;
  sort_by: 'thread_id' | 'status' | 'created_at' | 'updated_at';
  sort_order: 'asc' | 'desc';
  /** Only this user's threads (read from their own index). */
  owner?: string;
  /** A custom auth handler's filter on metadata (LangGraph's operators). */
  accessFilter?: MetadataFilter;
}

/** Who holds a thread id, and whether its record exists (an upload claims an id before its thread is made). */
export interface ThreadOwnership {
  /** Null when nobody claimed the id: a thread made before owners existed is the anonymous user's. */
  owner: string | null;
  exists: boolean;
}

export type ThreadIfExists = 'raise' | 'do_nothing' | 'take_handoff';

export interface ThreadStore {
  /**
   * `take_handoff` answers an existing thread only if it is a handoff nothing has run on (see
   * `handoff`), once; otherwise it raises. `handoff` marks a new thread as made for the same
   * user's LangGraph client to create again (DeerFlow's POST /api/threads, then its SDK's create).
   */
  create(input: { threadId: string; metadata: Record<string, unknown>; ifExists: ThreadIfExists; owner: string; handoff?: boolean }): Promise<Thread>;
  ownership(threadId: string): Promise<ThreadOwnership>;
  /** Who holds the thread id (null: nobody claimed it), without asking whether the record exists. */
  ownerOf(threadId: string): Promise<string | null>;
  /** Claims an id nobody holds for `owner`; answers who holds it afterwards (the caller, or whoever was first). */
  claim(threadId: string, owner: string): Promise<string>;
  /** The owner of a removed thread lapses with its runs (a stateless run's thread); otherwise it stays, so the id is not reused. */
  expireOwner(threadId: string, seconds: number): Promise<void>;
  /** Frees the id once the record is gone too (its files were removed). */
  releaseOwner(threadId: string): Promise<void>;
  get(threadId: string): Promise<Thread | null>;
  require(threadId: string): Promise<Thread>;
  /** The thread's metadata alone (null: no thread), without reading and parsing its values. */
  metadataOf(threadId: string): Promise<Thread['metadata'] | null>;
  /** Merges `metadata` into the thread's. */
  patchMetadata(threadId: string, metadata: Record<string, unknown>): Promise<Thread>;
  setValues(threadId: string, values: Record<string, unknown>, interrupts?: Record<string, unknown>): Promise<void>;
  setStatus(threadId: string, status: ThreadStatus): Promise<void>;
  /** Re-scores the thread in the index after its record changed. */
  touch(threadId: string): Promise<void>;
  remove(threadId: string): Promise<boolean>;
  search(query: ThreadSearch): Promise<{ threads: Thread[]; total: number }>;
}

/** The thread a record hash holds (read from `key`, which names a damaged field); null when none. */
export function threadFromHash(hash: Record<string, string>, json: JsonReader, key: string): Thread | null {
  if (!hash.thread_id) return null;
  return {
    thread_id: hash.thread_id,
    created_at: hash.created_at ?? '',
    updated_at: hash.updated_at ?? hash.created_at ?? '',
    metadata: json(hash.metadata, {}, `${key}#metadata`),
    status: (hash.status as ThreadStatus) ?? 'idle',
    values: json(hash.values, null, `${key}#values`),
    interrupts: json(hash.interrupts, {}, `${key}#interrupts`),
  };
}

export function createThreadStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, onDamaged: OnDamagedRecord): ThreadStore {
  const createScript = requireScript(scripts, 'createThread');
  const releaseOwnerScript = requireScript(scripts, 'releaseThreadOwner');
  const owners = createOwnerIndex(redis);
  const json = jsonReader(onDamaged);

  const get = async (threadId: string): Promise<Thread | null> => threadFromHash(await redis.hgetall(keys.thread(threadId)), json, keys.thread(threadId));
  const require = async (threadId: string): Promise<Thread> => {
    const thread = await get(threadId);
    if (!thread) throw new ThreadNotFoundError(`Thread ${threadId} not found`);
    return thread;
  };
  const ownerOf = (threadId: string): Promise<string | null> => redis.get(keys.threadOwner(threadId));
  const unindex = async (threadId: string, owner: string | null): Promise<void> => {
    await redis.zrem(keys.threadIndex(), threadId);
    if (owner !== null) await owners.remove('threads', owner, threadId);
  };
  const index = async (threadId: string, updatedMs: number, owner: string | null): Promise<void> => {
    await Promise.all([redis.zadd(keys.threadIndex(), updatedMs, threadId), owner !== null && owners.add('threads', owner, threadId, updatedMs)]);
    // A new thread deleted between its creation and these writes would leave index entries for
    // ever: checked after, so one of the two removes them. (Updates use reindex, which never adds.)
    if ((await redis.exists(keys.thread(threadId))) === 0) await unindex(threadId, owner);
  };
  /** A thread's index entries move to its new updated_at; XX: a thread deleted meanwhile is never put back. */
  const reindex = async (threadId: string, updatedMs: number, owner: string | null): Promise<void> => {
    await Promise.all([redis.zadd(keys.threadIndex(), 'XX', updatedMs, threadId), owner !== null && owners.move('threads', owner, threadId, updatedMs)]);
  };
  const touch = async (threadId: string): Promise<void> => {
    const [updated, owner] = await Promise.all([redis.hget(keys.thread(threadId), 'updated_at'), ownerOf(threadId)]);
    if (updated) await reindex(threadId, Date.parse(updated), owner);
  };

  return {
    get,
    require,
    touch,
    async metadataOf(threadId) {
      const [id, metadata] = await redis.hmget(keys.thread(threadId), 'thread_id', 'metadata');
      return id ? json(metadata, {}, `${keys.thread(threadId)}#metadata`) : null;
    },
    ownerOf,

    async create({ threadId, metadata, ifExists, owner, handoff = false }) {
      const now = nowIso();
      const metadataJson = JSON.stringify(metadata);
      const args = [threadId, now, metadataJson, ifExists, owner, handoff ? '1' : ''];
      const result = Number(await createScript([keys.thread(threadId), keys.threadOwner(threadId)], args));
      if (result === -1) throw new ThreadExistsError(`Thread ${threadId} already exists`);
      if (result === 0) return require(threadId);
      await index(threadId, Date.parse(now), owner);
      // What create-thread wrote, without reading it back.
      return { thread_id: threadId, created_at: now, updated_at: now, metadata: JSON.parse(metadataJson) as Thread['metadata'], status: 'idle', values: null, interrupts: {} };
    },

    async ownership(threadId) {
      const [owner, exists] = await Promise.all([ownerOf(threadId), redis.exists(keys.thread(threadId))]);
      return { owner, exists: exists === 1 };
    },

    async claim(threadId, owner) {
      await redis.set(keys.threadOwner(threadId), owner, 'NX');
      return (await ownerOf(threadId)) ?? owner;
    },

    async expireOwner(threadId, seconds) {
      await redis.expire(keys.threadOwner(threadId), seconds);
    },

    async releaseOwner(threadId) {
      await releaseOwnerScript([keys.thread(threadId), keys.threadOwner(threadId)], []);
    },

    async patchMetadata(threadId, metadata) {
      const thread = await require(threadId);
      const merged = { ...thread.metadata, ...metadata };
      const now = nowIso();
      const [, owner] = await Promise.all([redis.hset(keys.thread(threadId), 'metadata', JSON.stringify(merged), 'updated_at', now), ownerOf(threadId)]);
      await reindex(threadId, Date.parse(now), owner);
      // What was written over what was read, without reading it back.
      return { ...thread, metadata: merged, updated_at: now };
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
      const owner = await ownerOf(threadId);
      const removed = await redis.del(keys.thread(threadId));
      await unindex(threadId, owner);
      return removed > 0;
    },

    async search(query) {
      // The index gives updated_at order cheaply; other filters and sorts read the records.
      // Fine to hundreds of thousands of threads; a secondary index per metadata key would be next.
      // A user's search reads their own index; `ids` are checked against it.
      const visible = query.owner === undefined ? null : await owners.ids('threads', query.owner, 'desc');
      const own = visible && query.ids ? new Set(visible) : null;
      const ids = query.ids ? (own ? query.ids.filter((id) => own.has(id)) : query.ids) : (visible ?? (await redis.zrevrange(keys.threadIndex(), 0, -1)));
      // Threads live on different slots: one HGETALL each, sent together (auto-pipelined into
      // one batch on a single Redis; on a Cluster each written at once to its node).
      const records = await Promise.all(ids.map(get));
      const threads: Thread[] = [];
      for (const thread of records) {
        if (!thread) continue;
        if (query.status && thread.status !== query.status) continue;
        if (query.metadata && !matchesFilter(thread.metadata, query.metadata)) continue;
        if (query.accessFilter && !matchesMetadataFilter(thread.metadata, query.accessFilter)) continue;
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
