// The long-term store: items under namespaces, as LangGraph's BaseStore and its /store/items API
// define them, all in Redis (keys.ts, `{store}`). An item is one hash; each prefix of its
// namespace has a sorted index, newest first, so a search under a prefix reads one set. Items
// may expire (TTL in minutes, as LangGraph counts); an expired item reads as absent at once and
// the sweep removes it. With an embedding model, writes store embeddings and `query` ranks.
import { randomUUID } from 'node:crypto';
import { getTextAtPath } from '@langchain/langgraph-checkpoint';
import type { Embeddings } from '@langchain/core/embeddings';
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import { jsonReader, type JsonReader, type OnDamagedRecord } from './json.js';
import { requireScript, type ScriptCaller } from './scripts.js';
import { matchesStoreFilter } from './store-filter.js';
import { packVectors, unitVector, VectorRanker } from './store-vectors.js';

export interface StoreItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** Similarity to the search's `query`, for items it ranked. */
  score?: number;
}

export interface StoreIndexSettings {
  embeddings: Pick<Embeddings, 'embedDocuments' | 'embedQuery'>;
  dims: number;
  /** JSON paths whose text is embedded (`$` is the whole value). */
  fields: string[];
  /** Bytes of embeddings each process keeps between searches. */
  cacheBytes: number;
}

export interface StoreSettings {
  /** Minutes an item lives when its write names no TTL; null for ever. */
  defaultTtlMinutes: number | null;
  /** Whether reads restart an item's TTL when they do not say. */
  refreshOnRead: boolean;
  index: StoreIndexSettings | null;
}

export interface PutOptions {
  /** false: no embeddings; a list: these paths instead of the configured fields. */
  index?: false | string[] | null;
  /** Minutes; null never expires; undefined takes the default. */
  ttlMinutes?: number | null;
}

export interface SearchOptions {
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  query?: string;
  refreshTtl?: boolean | null;
}

export interface ListNamespacesOptions {
  prefix?: string[];
  suffix?: string[];
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

export interface ItemStore {
  readonly settings: StoreSettings;
  put(namespace: string[], key: string, value: Record<string, unknown>, options?: PutOptions): Promise<void>;
  /**
   * Compare-and-set: writes only if the item still holds `expected` (the value a `get` returned),
   * or, with `expected` null, if there is none. False when it changed meanwhile (nothing written).
   */
  putIfUnchanged(namespace: string[], key: string, value: Record<string, unknown>, expected: Record<string, unknown> | null, options?: PutOptions): Promise<boolean>;
  get(namespace: string[], key: string, options?: { refreshTtl?: boolean | null }): Promise<StoreItem | null>;
  delete(namespace: string[], key: string): Promise<void>;
  search(prefix: string[], options?: SearchOptions): Promise<StoreItem[]>;
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;
  /** Removes items that expired by `now`; returns how many. */
  sweepExpired(now?: number, batch?: number): Promise<number>;
}

/** Items read per round trip while a search walks an index. */
const PAGE = 200;

export const itemId = (namespace: readonly string[], key: string): string => JSON.stringify([...namespace, key]);

/** The index keys an item joins: all items, then each prefix of its namespace. */
const prefixIndexes = (namespace: readonly string[]): string[] =>
  Array.from({ length: namespace.length + 1 }, (_, depth) => keys.storePrefixIndex(namespace.slice(0, depth)));

const itemKeys = (namespace: readonly string[], key: string): string[] => [
  keys.storeItem(itemId(namespace, key)),
  keys.storeNamespaces(),
  keys.storeExpiries(),
  keys.storeVectors(),
  keys.storeVectorRevs(),
  keys.storeVectorGeneration(),
  ...prefixIndexes(namespace),
];

/** A label matches a pattern label when equal, or when the pattern says `*`. */
const labelsMatch = (labels: readonly string[], pattern: readonly string[]): boolean => pattern.every((p, i) => p === '*' || p === labels[i]);

/** The item an item hash holds (read from `key`, which names a damaged field); null when none or expired. */
function fromHash(hash: Record<string, string>, now: number, json: JsonReader, key: string): StoreItem | null {
  if (!hash.key || !hash.namespace) return null;
  if (hash.expires_at && Number(hash.expires_at) <= now) return null;
  return {
    namespace: json<string[]>(hash.namespace, [], `${key}#namespace`),
    key: hash.key,
    value: json<Record<string, unknown>>(hash.value, {}, `${key}#value`),
    created_at: hash.created_at ?? '',
    updated_at: hash.updated_at ?? '',
  };
}

export function createItemStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, settings: StoreSettings, onDamaged: OnDamagedRecord): ItemStore {
  const putItem = requireScript(scripts, 'putStoreItem');
  const deleteItem = requireScript(scripts, 'deleteStoreItem');
  const refreshTtl = requireScript(scripts, 'refreshStoreTtl');
  const index = settings.index;
  const ranker = index ? new VectorRanker(redis, index.dims, index.cacheBytes) : null;
  const json = jsonReader(onDamaged);

  const wantsRefresh = (asked: boolean | null | undefined) => asked ?? settings.refreshOnRead;

  async function embeddingsOf(value: Record<string, unknown>, paths: false | string[] | null | undefined): Promise<Buffer | null> {
    if (!index || paths === false) return null;
    const texts = (paths ?? index.fields).flatMap((path) => getTextAtPath(value, path)).filter((text) => text.trim() !== '');
    if (texts.length === 0) return null;
    return packVectors(await index.embeddings.embedDocuments(texts), index.dims);
  }

  async function readItems(ids: readonly string[], now: number): Promise<(StoreItem | null)[]> {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hgetall(keys.storeItem(id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, hash], i) => {
      if (err) throw err;
      return fromHash(hash as Record<string, string>, now, json, keys.storeItem(ids[i] as string));
    });
  }

  async function refresh(items: readonly StoreItem[], now: number): Promise<void> {
    await Promise.all(
      items.map((item) => {
        const id = itemId(item.namespace, item.key);
        return refreshTtl([keys.storeItem(id), keys.storeExpiries()], [id, now]);
      }),
    );
  }

  /** Walks `ids` in order, keeping items that pass the filter, until offset + limit are found. */
  async function collect(ids: AsyncIterable<string[]>, options: SearchOptions, now: number, scores?: Map<string, number>): Promise<StoreItem[]> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 10;
    const found: StoreItem[] = [];
    let skipped = 0;
    for await (const page of ids) {
      for (const [i, item] of (await readItems(page, now)).entries()) {
        if (!item || !matchesStoreFilter(item.value, options.filter)) continue;
        if (skipped < offset) {
          skipped += 1;
          continue;
        }
        const score = scores?.get(page[i] as string);
        found.push(score === undefined ? item : { ...item, score });
        if (found.length === limit) return found;
      }
    }
    return found;
  }

  async function* newestFirst(prefix: readonly string[]): AsyncIterable<string[]> {
    const indexKey = keys.storePrefixIndex(prefix);
    for (let start = 0; ; start += PAGE) {
      const page = await redis.zrevrange(indexKey, start, start + PAGE - 1);
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  }

  async function* inPages(ids: readonly string[]): AsyncIterable<string[]> {
    for (let start = 0; start < ids.length; start += PAGE) yield ids.slice(start, start + PAGE);
  }

  /** The put script; `condition` is its compare-and-set argument ('' for none). Returns its reply. */
  async function write(namespace: string[], key: string, value: Record<string, unknown>, options: PutOptions, condition: string): Promise<unknown> {
    const now = Date.now();
    const ttl = options.ttlMinutes === undefined ? settings.defaultTtlMinutes : options.ttlMinutes;
    const vectors = await embeddingsOf(value, options.index);
    return putItem(itemKeys(namespace, key), [
      itemId(namespace, key),
      JSON.stringify(namespace),
      key,
      JSON.stringify(value),
      new Date(now).toISOString(),
      now,
      ttl === null ? '' : Math.floor(now + ttl * 60_000),
      ttl === null ? '' : ttl,
      vectors ?? '',
      randomUUID(),
      condition,
    ]);
  }

  async function removeItem(namespace: readonly string[], key: string, expiredBy: number | null): Promise<boolean> {
    const reply = await deleteItem(itemKeys(namespace, key), [itemId(namespace, key), JSON.stringify(namespace), expiredBy === null ? '' : expiredBy]);
    return reply === 1;
  }

  return {
    settings,

    async put(namespace, key, value, options = {}) {
      await write(namespace, key, value, options, '');
    },

    async putIfUnchanged(namespace, key, value, expected, options = {}) {
      // The stored value is the JSON.stringify of what was put, and a read parses it: stringifying
      // the value read gives those same characters back, so comparing text compares the values.
      return (await write(namespace, key, value, options, expected === null ? '-' : `=${JSON.stringify(expected)}`)) !== -1;
    },

    async get(namespace, key, options = {}) {
      const now = Date.now();
      const [item] = await readItems([itemId(namespace, key)], now);
      if (!item) return null;
      if (wantsRefresh(options.refreshTtl)) await refresh([item], now);
      return item;
    },

    async delete(namespace, key) {
      await removeItem(namespace, key, null);
    },

    async search(prefix, options = {}) {
      const now = Date.now();
      let items: StoreItem[];
      if (options.query && index && ranker) {
        const query = unitVector(await index.embeddings.embedQuery(options.query), index.dims);
        const { ranked, candidates } = await ranker.rank(keys.storePrefixIndex(prefix), query);
        const scored = new Set(ranked.map((r) => r.item));
        // Items without embeddings (written with `index: false`) follow the ranked ones, as in LangGraph.
        const order = [...ranked.map((r) => r.item), ...candidates.filter((id) => !scored.has(id))];
        items = await collect(inPages(order), options, now, new Map(ranked.map((r) => [r.item, r.score])));
      } else {
        items = await collect(newestFirst(prefix), options, now);
      }
      if (wantsRefresh(options.refreshTtl)) await refresh(items, now);
      return items;
    },

    async listNamespaces(options = {}) {
      const all = (await redis.hkeys(keys.storeNamespaces())).map((field) => json<string[]>(field, [], keys.storeNamespaces()));
      const { prefix, suffix, maxDepth } = options;
      const matching = all.filter(
        (ns) =>
          ns.length > 0 &&
          (!prefix || (ns.length >= prefix.length && labelsMatch(ns, prefix))) &&
          (!suffix || (ns.length >= suffix.length && labelsMatch(ns.slice(ns.length - suffix.length), suffix))),
      );
      const cut = new Map<string, string[]>();
      for (const ns of matching) {
        const kept = maxDepth === undefined ? ns : ns.slice(0, maxDepth);
        cut.set(JSON.stringify(kept), kept);
      }
      const sorted = [...cut.values()].sort((a, b) => {
        const x = a.join('.');
        const y = b.join('.');
        return x < y ? -1 : x > y ? 1 : 0;
      });
      const offset = options.offset ?? 0;
      return sorted.slice(offset, offset + (options.limit ?? 100));
    },

    async sweepExpired(now = Date.now(), batch = 500) {
      let removed = 0;
      for (;;) {
        const due = await redis.zrangebyscore(keys.storeExpiries(), '-inf', now, 'LIMIT', 0, batch);
        for (const id of due) {
          const parts = json<string[]>(id, [], keys.storeExpiries());
          const key = parts.pop();
          if (key === undefined) {
            await redis.zrem(keys.storeExpiries(), id);
            continue;
          }
          // 0: a read refreshed it meanwhile (it is now due later), or it had no TTL (unlisted).
          if (await removeItem(parts, key, now)) removed += 1;
        }
        if (due.length < batch) return removed;
      }
    },
  };
}
