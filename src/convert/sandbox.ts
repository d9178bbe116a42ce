// Runs convertDocument in a worker thread with a heap cap, a cap on its buffers and a wall-clock
// limit, so a hostile or pathological document can crash, exhaust or hang only its worker. Every
// failure becomes a ConversionError; the caller's process and event loop carry on. The workers
// are pooled (pool.ts), one pool per heap cap and size, since a thread's heap cap is fixed when
// it starts; idle workers never keep the process alive.
import type { JobLimits } from './converter-thread.js';
import { DEFAULT_POOL_MAX_WORKERS, DEFAULT_POOL_MEMORY_MB, createConversionPool } from './pool.js';
import type { ConversionPool, PoolStats } from './pool.js';

export interface SandboxLimits extends JobLimits {
  /** Heap cap of the worker (V8 old generation). Default 512 MB. */
  maxOldGenerationSizeMb?: number;
  /** Workers converting at once under this heap cap; more documents wait their turn. Default 2. */
  maxWorkers?: number;
}

export const DEFAULT_SANDBOX_MEMORY_MB = DEFAULT_POOL_MEMORY_MB;

const pools = new Map<string, ConversionPool>();

function poolFor(limits: SandboxLimits): ConversionPool {
  const maxOldGenerationSizeMb = limits.maxOldGenerationSizeMb ?? DEFAULT_SANDBOX_MEMORY_MB;
  const maxWorkers = limits.maxWorkers ?? DEFAULT_POOL_MAX_WORKERS;
  const key = `${maxOldGenerationSizeMb}/${maxWorkers}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = createConversionPool({ maxOldGenerationSizeMb, maxWorkers });
    pools.set(key, pool);
  }
  return pool;
}

/**
 * Converts a document to Markdown like convertDocument, but in a worker thread with a memory cap
 * and a time limit. A crash, out-of-memory, timeout or parser exception rejects with a
 * ConversionError; on timeout the worker (and any LibreOffice it started) is killed.
 */
export function convertInSandbox(bytes: Buffer, filename: string, limits: SandboxLimits = {}): Promise<string> {
  return poolFor(limits).convert(bytes, filename, limits);
}

/** The counters of the pool that convertInSandbox uses for these limits. */
export function sandboxStats(limits: SandboxLimits = {}): PoolStats {
  return poolFor(limits).stats();
}

/** Ends every sandbox worker (conversions in flight fail); later conversions start new ones. */
export async function closeSandboxes(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}
