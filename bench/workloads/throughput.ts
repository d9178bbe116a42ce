// Workloads 1 and 2: run throughput at a fixed client concurrency, and each run's time to first
// token and to end of stream. `concurrency` clients loop, each doing threads.create + runs.stream,
// until `runs` runs have started; throughput is completed runs over the wall time of the level.
import { sdkClient, timedRun, type RunTiming } from '../client/sdk-run.ts';
import { cpuByProcess, foreignCpuMeter } from '../lib/processes.ts';
import { summarize, type Summary } from '../lib/stats.ts';
import type { BenchServer, ServerName } from '../servers/bench-server.ts';

export interface ThroughputPoint {
  server: ServerName;
  graph: string;
  concurrency: number;
  runs: number;
  errors: number;
  /** First few distinct error messages. */
  error_samples: string[];
  wall_s: number;
  runs_per_s: number;
  ttft_ms: Summary;
  last_event_ms: Summary;
  end_ms: Summary;
  create_ms: Summary;
  /** CPU the server's processes used per completed run, in all and by process. */
  server_cpu_ms_per_run: number;
  cpu_ms_per_run_by_process: Record<string, number>;
  /** Busiest server process over the level, in % of one core: 100 means that process was the bottleneck. */
  busiest_process: { name: string; cpu_pct: number };
  /** CPU used by other programs on the machine during the level, in % of one core. */
  foreign_cpu_pct: number;
}

export interface ThroughputLevel {
  concurrency: number;
  runs: number;
}

export async function measureThroughput(server: BenchServer, graph: string, level: ThroughputLevel, deadlineMs: number): Promise<ThroughputPoint> {
  const client = sdkClient(server.apiUrl);
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new Error('level deadline')), deadlineMs);
  const timings: RunTiming[] = [];
  let started = 0;
  const cpuBefore = cpuByProcess(server.processes);
  const foreign = foreignCpuMeter(server.processes);
  const t0 = performance.now();
  const loop = async () => {
    while (started < level.runs && !abort.signal.aborted) {
      started++;
      timings.push(await timedRun(client, graph, abort.signal));
    }
  };
  await Promise.all(Array.from({ length: level.concurrency }, loop));
  const wallS = (performance.now() - t0) / 1000;
  clearTimeout(deadline);
  const cpuAfter = cpuByProcess(server.processes);
  const foreignPct = foreign();
  const used = Object.entries(cpuAfter.byName).map(([name, s]) => [name, s - (cpuBefore.byName[name] ?? 0)] as const);
  const busiest = [...used].sort((a, b) => b[1] - a[1])[0] ?? ['none', 0];

  const ok = timings.filter((t) => t.ok);
  const perRun = (seconds: number) => Number(((seconds * 1000) / Math.max(1, ok.length)).toFixed(1));
  const failed = timings.filter((t) => !t.ok);
  // Runs the deadline kept from starting count as errors too: the level asked for them.
  const errors = failed.length + (level.runs - timings.length);
  return {
    server: server.name,
    graph,
    concurrency: level.concurrency,
    runs: ok.length,
    errors,
    error_samples: [...new Set(failed.map((t) => t.error ?? 'unknown'))].slice(0, 3),
    wall_s: Number(wallS.toFixed(2)),
    runs_per_s: Number((ok.length / wallS).toFixed(2)),
    ttft_ms: summarize(ok.map((t) => t.ttftMs)),
    last_event_ms: summarize(ok.map((t) => t.lastEventMs)),
    end_ms: summarize(ok.map((t) => t.endMs)),
    create_ms: summarize(ok.map((t) => t.createMs)),
    server_cpu_ms_per_run: perRun(cpuAfter.total - cpuBefore.total),
    cpu_ms_per_run_by_process: Object.fromEntries(used.map(([name, s]) => [name, perRun(s)])),
    busiest_process: { name: busiest[0], cpu_pct: Number(((busiest[1] / wallS) * 100).toFixed(0)) },
    foreign_cpu_pct: foreignPct,
  };
}
