// Semantic ranking for the store. Redis 7 has no vector index, so the process serving a search
// ranks by brute force: it reads the candidates' embeddings from one hash and scores them
// against the query. Embeddings are stored unit-length, so cosine similarity is a dot product.
// Each process keeps the embeddings it has read, checked against a revision that every write
// changes, so a repeated search reads only revisions from Redis, not the vectors themselves; and
// while the store's write generation stays the same, not even those.
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import { EmbeddingDimsMismatchError } from './store.errors.js';

/** Redis round trips of at most this many fields each. */
const CHUNK = 2_000;

export interface Ranked {
  item: string;
  score: number;
}

export function unitVector(vector: readonly number[], dims: number): Float32Array {
  if (vector.length !== dims) throw new EmbeddingDimsMismatchError(`the embedding model returned ${vector.length} dimensions; store.index.dims is ${dims}`);
  let squares = 0;
  for (const x of vector) squares += x * x;
  const norm = Math.sqrt(squares) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}

/** Unit-length float32 copies of `vectors`, end to end, as stored. */
export function packVectors(vectors: readonly (readonly number[])[], dims: number): Buffer {
  const packed = new Float32Array(vectors.length * dims);
  vectors.forEach((vector, i) => packed.set(unitVector(vector, dims), i * dims));
  return Buffer.from(packed.buffer);
}

const chunks = <T>(list: readonly T[]): T[][] => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

export class VectorRanker {
  private readonly cache = new Map<string, { rev: string; vectors: Float32Array }>();
  private cachedBytes = 0;
  /** Per prefix index: its members and which had embeddings, as of a write generation. */
  private readonly prefixes = new Map<string, { generation: string; candidates: string[]; embedded: string[] }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly dims: number,
    /** How many bytes of embeddings this process keeps between searches. */
    private readonly cacheBytes: number,
  ) {}

  /**
   * Scores every member of the index at `indexKey` that has embeddings (best text wins); the
   * rest are left out of `ranked` but listed in `candidates`, newest first.
   */
  async rank(indexKey: string, query: Float32Array): Promise<{ ranked: Ranked[]; candidates: string[] }> {
    // Read before the index: a write after this read leaves a newer generation behind it.
    const generation = (await this.redis.get(keys.storeVectorGeneration())) ?? '0';
    const known = this.prefixes.get(indexKey);
    let candidates: string[];
    let embedded: string[];
    if (known && known.generation === generation && known.embedded.every((item) => this.cache.has(item))) {
      ({ candidates, embedded } = known);
    } else {
      candidates = await this.redis.zrevrange(indexKey, 0, -1);
      embedded = await this.refresh(candidates);
      this.prefixes.set(indexKey, { generation, candidates, embedded });
    }
    const ranked: Ranked[] = [];
    for (const item of embedded) {
      const entry = this.cache.get(item);
      if (entry) ranked.push({ item, score: this.best(entry.vectors, query) });
    }
    // Beyond the cache's size, vectors read for this search are dropped now, not kept.
    this.trim();
    return { ranked: ranked.sort((a, b) => b.score - a.score), candidates };
  }

  /** Brings the cache up to date for `candidates`; answers those that have embeddings. */
  private async refresh(candidates: readonly string[]): Promise<string[]> {
    const revs = await this.fetch(candidates, (batch) => this.redis.hmget(keys.storeVectorRevs(), ...batch));
    const stale: number[] = [];
    candidates.forEach((item, i) => {
      const rev = revs[i];
      if (rev && this.cache.get(item)?.rev !== rev) stale.push(i);
    });
    if (stale.length > 0) {
      const buffers = await this.fetch(
        stale.map((i) => candidates[i] as string),
        (batch) => this.redis.hmgetBuffer(keys.storeVectors(), ...batch),
      );
      stale.forEach((candidate, i) => {
        const buffer = buffers[i];
        const rev = revs[candidate];
        if (buffer && rev) this.remember(candidates[candidate] as string, rev, new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength)));
      });
    }
    return candidates.filter((item, i) => revs[i] && this.cache.has(item));
  }

  private best(vectors: Float32Array, query: Float32Array): number {
    let best = -Infinity;
    for (let offset = 0; offset + this.dims <= vectors.length; offset += this.dims) {
      let dot = 0;
      for (let d = 0; d < this.dims; d += 1) dot += (vectors[offset + d] as number) * (query[d] as number);
      if (dot > best) best = dot;
    }
    return best;
  }

  private remember(item: string, rev: string, vectors: Float32Array): void {
    const old = this.cache.get(item);
    if (old) this.cachedBytes -= old.vectors.byteLength;
    this.cache.delete(item);
    this.cache.set(item, { rev, vectors });
    this.cachedBytes += vectors.byteLength;
  }

  private trim(): void {
    for (const [item, entry] of this.cache) {
      if (this.cachedBytes <= this.cacheBytes) return;
      this.cache.delete(item);
      this.cachedBytes -= entry.vectors.byteLength;
    }
  }

  private async fetch<T>(items: readonly string[], read: (batch: string[]) => Promise<(T | null)[]>): Promise<(T | null)[]> {
    const parts = await Promise.all(chunks(items).map(read));
    return parts.flat();
  }
}
