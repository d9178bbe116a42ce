// Command-line flags and the two profiles. Every count is bounded: the full profile stays under
// about 15 minutes on a 2-core machine, --quick under about 3.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RedisCommandsParams } from '../workloads/redis-commands.ts';
import type { StalledFanoutParams } from '../workloads/stalled-fanout.ts';
import type { StoreSearchParams } from '../workloads/store-search.ts';
import type { ThroughputLevel } from '../workloads/throughput.ts';

export const WORKLOADS = ['floor', 'throughput', 'first-token', 'lead-agent', 'fanout', 'idle', 'stalled-fanout', 'conversion', 'models-under-load', 'store-search', 'redis-commands'] as const;
export type Workload = (typeof WORKLOADS)[number];

export interface BenchOptions {
  quick: boolean;
  /** Tokens in the scripted answer, and the delay before each. */
  tokens: number;
  delayMs: number;
  /** Runs each server executes at once: anchor nWorkers and Warren's WARREN_WORKER_CONCURRENCY. */
  slots: number;
  /** Also measure the anchor at its CLI default (`langgraphjs dev`: 10 workers). */
  anchorDefault: boolean;
  levels: ThroughputLevel[];
  leadAgentLevels: ThroughputLevel[];
  /** Runs (at concurrency 20) before a server's first workload: JIT and module loading settle. */
  warmupRuns: number;
  /** Also measure Warren with two worker processes sharing the same run slots. */
  warrenScaleOut: boolean;
  fanoutClients: number[];
  /** Model paces for fan-out: the run's own pace, and a typical hosted-LLM pace. */
  fanoutDelaysMs: number[];
  idleSteps: number[];
  /**
   * The anchor stops earlier: each stream joined to it polls the run every 500 ms, so at 7,500
   * streams it used a whole core and joining took minutes, and at 10,000 it dropped every stream.
   */
  anchorIdleMax: number;
  idleHeldRuns: number;
  idleSettleMs: number;
  /** Readers, stalled sockets, the run's length and the wait after they leave (Warren only). */
  stalledFanout: StalledFanoutParams;
  conversionRepeats: number;
  largePdfMiB: number;
  /** Items, dimensions and cache size of each semantic-search measurement. */
  storeSearch: StoreSearchParams[];
  /** Runs counted with MONITOR for the Redis-commands-per-run table, per graph. */
  redisCommands: RedisCommandsParams;
  /** Runs whose path to the first token is read off their streams (Warren only), at each concurrency. */
  firstToken: ThroughputLevel[];
  largePdfUploads: number;
  levelDeadlineMs: number;
  /** How long to wait for other programs to leave the machine before each measured step. */
  quietWaitMs: number;
  workloads: ReadonlySet<Workload>;
  /** Which servers to measure (both unless --servers names one). */
  servers: ReadonlySet<'anchor' | 'warren'>;
  /** Write V8 CPU profiles of Warren's API and workers here (`--cpu-prof DIR`). */
  cpuProfDir: string | null;
  /** Each forced GC of Warren's API writes a heap snapshot here instead (`--heap-snapshots DIR`). */
  heapSnapshotDir: string | null;
  /**
   * Measure the Warren built in this checkout instead of this one (`--warren-root DIR`, e.g. a
   * `git worktree` of an older commit with its own `npm ci && npm run build`): before and after.
   */
  warrenRoot: string | null;
  /** Warren on a local 3-master Redis Cluster instead of one redis-server (`--redis-cluster`). */
  redisCluster: boolean;
}

const QUICK = {
  levels: [
    { concurrency: 1, runs: 5 },
    { concurrency: 10, runs: 30 },
    { concurrency: 50, runs: 100 },
    { concurrency: 200, runs: 200 },
  ],
  leadAgentLevels: [
    { concurrency: 1, runs: 3 },
    { concurrency: 10, runs: 20 },
  ],
  warmupRuns: 60,
  idleSteps: [0, 250, 500, 1000],
  anchorIdleMax: 1000,
  idleSettleMs: 2000,
  stalledFanout: { readers: 500, stalled: 50, settleMs: 15_000 },
  conversionRepeats: 1,
  largePdfMiB: 4,
  storeSearch: [{ items: 10_000, dims: 256, cacheMb: 256 }],
  redisCommands: { runs: 50, concurrency: 10 },
  firstToken: [{ concurrency: 50, runs: 100 }],
};

const FULL = {
  levels: [
    { concurrency: 1, runs: 20 },
    { concurrency: 10, runs: 150 },
    { concurrency: 50, runs: 500 },
    { concurrency: 200, runs: 1000 },
  ],
  leadAgentLevels: [
    { concurrency: 1, runs: 10 },
    { concurrency: 10, runs: 60 },
    { concurrency: 50, runs: 150 },
  ],
  warmupRuns: 200,
  // The goal is 10,000 idle streams per API process: measured, not projected.
  idleSteps: [0, 1000, 2500, 5000, 7500, 10000],
  anchorIdleMax: 5000,
  idleSettleMs: 3000,
  stalledFanout: { readers: 2000, stalled: 200, settleMs: 60_000 },
  conversionRepeats: 3,
  largePdfMiB: 16,
  // OpenAI's text-embedding-3-small has 1536 dimensions; 10^5 of them (600 MiB) outgrow the
  // default 256 MiB cache, so that size is measured with the default and with room for all.
  storeSearch: [
    { items: 10_000, dims: 256, cacheMb: 256 },
    { items: 10_000, dims: 1536, cacheMb: 256 },
    { items: 100_000, dims: 256, cacheMb: 256 },
    { items: 100_000, dims: 1536, cacheMb: 256 },
    { items: 100_000, dims: 1536, cacheMb: 1024 },
  ],
  redisCommands: { runs: 200, concurrency: 50 },
  firstToken: [
    { concurrency: 10, runs: 150 },
    { concurrency: 50, runs: 500 },
  ],
};

const STALLED_RUN_TOKENS = 1900;

/** A flag's integer value, at least `min`; bad values fail at once rather than mid-run. */
export const integer = (name: string, value: string | undefined, fallback: number, min: number): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
};

export function readOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      tokens: { type: 'string' },
      'delay-ms': { type: 'string' },
      slots: { type: 'string' },
      'no-anchor-default': { type: 'boolean', default: false },
      'no-scale-out': { type: 'boolean', default: false },
      'no-wait-quiet': { type: 'boolean', default: false },
      only: { type: 'string' },
      servers: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'heap-snapshots': { type: 'string' },
      'warren-root': { type: 'string' },
      'redis-cluster': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const profile = values.quick ? QUICK : FULL;
  const delayMs = integer('delay-ms', values['delay-ms'], 5, 0);
  const only = values.only?.split(',').map((w) => w.trim()) ?? [...WORKLOADS];
  const servers = values.servers?.split(',').map((w) => w.trim()) ?? ['anchor', 'warren'];
  for (const s of servers) if (s !== 'anchor' && s !== 'warren') throw new Error(`--servers: unknown server "${s}" (known: anchor, warren)`);
  for (const w of only) if (!(WORKLOADS as readonly string[]).includes(w)) throw new Error(`--only: unknown workload "${w}" (known: ${WORKLOADS.join(', ')})`);
  return {
    quick: values.quick,
    tokens: integer('tokens', values.tokens, 50, 1),
    delayMs,
    slots: integer('slots', values.slots, 50, 1),
    anchorDefault: !values.quick && !values['no-anchor-default'],
    warrenScaleOut: !values.quick && !values['no-scale-out'],
    levels: profile.levels,
    leadAgentLevels: profile.leadAgentLevels,
    warmupRuns: profile.warmupRuns,
    fanoutClients: [1, 100, 1000],
    fanoutDelaysMs: [...new Set([delayMs, 20])],
    idleSteps: profile.idleSteps,
    anchorIdleMax: profile.anchorIdleMax,
    idleHeldRuns: 10,
    idleSettleMs: profile.idleSettleMs,
    // About 1.7 MB of SSE events, at 2 ms a token.
    stalledFanout: { ...profile.stalledFanout, tokens: STALLED_RUN_TOKENS, delayMs: 2 },
    conversionRepeats: profile.conversionRepeats,
    largePdfMiB: profile.largePdfMiB,
    storeSearch: profile.storeSearch,
    redisCommands: profile.redisCommands,
    firstToken: profile.firstToken,
    largePdfUploads: 4,
    levelDeadlineMs: 240_000,
    quietWaitMs: values['no-wait-quiet'] ? 0 : values.quick ? 30_000 : 120_000,
    workloads: new Set(only as Workload[]),
    servers: new Set(servers as ('anchor' | 'warren')[]),
    cpuProfDir: values['cpu-prof'] ? path.resolve(values['cpu-prof']) : null,
    heapSnapshotDir: values['heap-snapshots'] ? path.resolve(values['heap-snapshots']) : null,
    warrenRoot: values['warren-root'] ? path.resolve(values['warren-root']) : null,
    redisCluster: values['redis-cluster'],
  };
}
