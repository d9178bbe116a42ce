// Runs convertDocument in a worker thread with a heap cap, a cap on its buffers and a wall-clock
// limit, so a hostile or pathological document can crash, exhaust or hang only its worker. Every
// failure becomes a ConversionError; the caller's process and event loop carry on. The workers
// are pooled (pool.ts); a thread's heap cap is fixed when it starts, so the heap cap and size are
// the pool's, and the other limits go with each document. Idle workers never keep the process
// alive. Whoever creates a sandbox closes it: the API's composition root, or a test.
import type { JobLimits } from './converter-thread.js';
import { DEFAULT_POOL_MAX_WORKERS, DEFAULT_POOL_MEMORY_MB, createConversionPool } from './pool.js';
import type { ConversionPool } from './pool.js';

export interface SandboxLimits extends JobLimits {
  /** Heap cap of the worker (V8 old generation). Default 512 MB. */
  maxOldGenerationSizeMb?: number;
  /** Workers converting at once under this heap cap; more documents wait their turn. Default 2. */
  maxWorkers?: number;
  /** Workers kept started and warmed up ahead of demand (see PoolOptions). Default 0. */
  warmThreads?: number;
}

export const DEFAULT_SANDBOX_MEMORY_MB = DEFAULT_POOL_MEMORY_MB;

/**
 * A conversion pool with the heap cap and size of these limits. Its convert() works like
 * convertDocument, in a worker thread with a memory cap and a time limit: a crash, out-of-memory,
 * timeout or parser exception rejects with a ConversionError; on timeout the worker (and any
 * LibreOffice it started) is killed. close() ends every worker; conversions in flight fail.
 */
export function createSandbox(limits: Pick<SandboxLimits, 'maxOldGenerationSizeMb' | 'maxWorkers' | 'warmThreads'> = {}): ConversionPool {
  return createConversionPool({
    maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb ?? DEFAULT_SANDBOX_MEMORY_MB,
    maxWorkers: limits.maxWorkers ?? DEFAULT_POOL_MAX_WORKERS,
    warmThreads: limits.warmThreads ?? 0,
  });
}
