// Memory of each Node process of a server, sampled over a long run: a forced full GC first (so
// heap-used is what is live, not garbage waiting), then RSS (what the process holds from the
// system, live or not). One process at a time, so the pauses never stack.
import type { NodeProcess } from '../servers/warren.ts';
import { rssMiB } from './processes.ts';

export interface MemorySample {
  /** Seconds since the load started (negative before it). */
  t_s: number;
  /** `start`, `load`, `end`, `idle+1m`, `idle+2m`, … */
  phase: string;
  /** Runs ended when the sample was taken. */
  runs_done: number;
  process: string;
  heap_used_mib: number;
  rss_mib: number;
  /** What the operator sees without a forced GC: RSS, and V8's heap (live and garbage), just before it. */
  rss_before_gc_mib: number;
  heap_total_before_gc_mib: number;
  /** Memory outside V8's heap that JS objects hold (Buffers), after the GC. */
  external_mib: number;
}

export async function sampleMemory(processes: readonly NodeProcess[], phase: string, tS: number, runsDone: number): Promise<MemorySample[]> {
  const samples: MemorySample[] = [];
  for (const p of processes) {
    const rssBefore = Number(rssMiB(p.pid).toFixed(1));
    const gc = await p.collectGarbage();
    samples.push({
      t_s: Math.round(tS),
      phase,
      runs_done: runsDone,
      process: p.name,
      heap_used_mib: gc.heap_used_mib,
      rss_mib: Number(rssMiB(p.pid).toFixed(1)),
      rss_before_gc_mib: rssBefore,
      heap_total_before_gc_mib: gc.heap_total_before_mib,
      external_mib: gc.external_mib,
    });
  }
  return samples;
}

export interface FlatnessVerdict {
  process: string;
  start: { heap_used_mib: number; rss_mib: number };
  peak: { heap_used_mib: number; rss_mib: number };
  last: { phase: string; heap_used_mib: number; rss_mib: number };
  heap_ratio: number;
  rss_ratio: number;
  pass: boolean;
}

/** Per process: the last sample against the first, each within `tolerance` (0.1: 10 %) of it. */
export function flatness(samples: readonly MemorySample[], tolerance: number): FlatnessVerdict[] {
  const names = [...new Set(samples.map((s) => s.process))];
  return names.map((name) => {
    const own = samples.filter((s) => s.process === name);
    const first = own[0] as MemorySample;
    const last = own.at(-1) as MemorySample;
    const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
    const heapRatio = ratio(last.heap_used_mib, first.heap_used_mib);
    const rssRatio = ratio(last.rss_mib, first.rss_mib);
    return {
      process: name,
      start: { heap_used_mib: first.heap_used_mib, rss_mib: first.rss_mib },
      peak: { heap_used_mib: Math.max(...own.map((s) => s.heap_used_mib)), rss_mib: Math.max(...own.map((s) => s.rss_mib)) },
      last: { phase: last.phase, heap_used_mib: last.heap_used_mib, rss_mib: last.rss_mib },
      heap_ratio: heapRatio,
      rss_ratio: rssRatio,
      pass: heapRatio <= 1 + tolerance && rssRatio <= 1 + tolerance,
    };
  });
}
