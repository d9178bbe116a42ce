// Semantic search over the long-term store (issue 15). Redis 7 has no vector index, so the
// serving process ranks by brute force over the embeddings it reads from Redis: this measures
// what a `query` costs at a given number of items and dimensions, in one namespace, with the
// process's embedding cache cold (its first search, or a cache too small for the namespace) and
// warm. The embedding calls themselves are not measured: items and queries get deterministic
// pseudo-random vectors in process, so only Warren's own work is timed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { startRedis } from '../servers/redis.ts';
import { percentile } from '../lib/stats.ts';

export interface StoreSearchParams {
  items: number;
  dims: number;
  /** The process's embedding cache (`store.index.cache_mb`). */
  cacheMb: number;
}

export interface StoreSearchPoint extends StoreSearchParams {
  /** Items written per second (embeddings given, so this is Redis and our script). */
  put_per_s: number;
  /** Redis memory per item, embeddings included. */
  redis_bytes_per_item: number;
  /** A fresh process's first search: every embedding read from Redis. */
  first_query_ms: number;
  /** Median of later searches (the cache holds what fits). */
  query_ms_p50: number;
  query_ms_max: number;
}

/** A fixed pseudo-random unit-ish vector per text (xorshift seeded by the text). */
function vectorOf(text: string, dims: number): number[] {
  let seed = 2166136261;
  for (const ch of text) seed = Math.imul(seed ^ (ch.codePointAt(0) as number), 16777619) >>> 0;
  const out = new Array<number>(dims);
  for (let d = 0; d < dims; d += 1) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    out[d] = ((seed >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

interface ItemStoreModule {
  createItemStore: (redis: Redis, scripts: unknown, settings: unknown) => {
    put(ns: string[], key: string, value: Record<string, unknown>): Promise<void>;
    search(prefix: string[], options: { query: string; limit: number }): Promise<unknown[]>;
  };
}

export async function measureStoreSearch(warrenRoot: string, points: readonly StoreSearchParams[]): Promise<StoreSearchPoint[]> {
  const dist = path.join(warrenRoot, 'dist', 'src', 'store');
  const { createItemStore } = (await import(pathToFileURL(path.join(dist, 'store-items.js')).href)) as ItemStoreModule;
  const { loadScripts } = (await import(pathToFileURL(path.join(dist, 'scripts.js')).href)) as { loadScripts: (r: Redis) => unknown };
  const results: StoreSearchPoint[] = [];
  for (const point of points) {
    const dir = mkdtempSync(path.join(tmpdir(), 'warren-bench-store-'));
    const server = await startRedis(warrenRoot, dir);
    const redis = new Redis(server.url);
    try {
      const settings = (cacheMb: number) => ({
        defaultTtlMinutes: null,
        refreshOnRead: false,
        index: {
          embeddings: {
            embedDocuments: async (texts: string[]) => texts.map((t) => vectorOf(t, point.dims)),
            embedQuery: async (text: string) => vectorOf(text, point.dims),
          },
          dims: point.dims,
          fields: ['text'],
          cacheBytes: cacheMb * 1024 * 1024,
        },
      });
      const writer = createItemStore(redis, loadScripts(redis), settings(point.cacheMb));
      const before = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
      const started = performance.now();
      for (let i = 0; i < point.items; i += 500) {
        const batch = Array.from({ length: Math.min(500, point.items - i) }, (_, j) => i + j);
        await Promise.all(batch.map((n) => writer.put(['bench', 'docs'], `doc-${n}`, { text: `document ${n}`, n })));
      }
      const putPerS = point.items / ((performance.now() - started) / 1000);
      const after = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);

      // A fresh store: the first search reads every embedding.
      const reader = createItemStore(redis, loadScripts(redis), settings(point.cacheMb));
      const t0 = performance.now();
      await reader.search(['bench'], { query: 'query 0', limit: 10 });
      const first = performance.now() - t0;
      const times: number[] = [];
      for (let q = 1; q <= 7; q += 1) {
        const t = performance.now();
        await reader.search(['bench'], { query: `query ${q}`, limit: 10 });
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      results.push({
        ...point,
        put_per_s: Math.round(putPerS),
        redis_bytes_per_item: Math.round((after - before) / point.items),
        first_query_ms: Math.round(first),
        query_ms_p50: Math.round(percentile(times, 50)),
        query_ms_max: Math.round(times.at(-1) ?? 0),
      });
    } finally {
      redis.disconnect();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}
