// Workload 4: idle SSE connections. Clients join held runs (running, waiting at the model gate,
// so nothing streams) in steps up to a bound; at each step, after a settle time, we read the
// API process's RSS and count the streams still open. Memory per connection is the slope of a
// least-squares line through (connections, RSS). The server's CPU while it only holds idle
// streams is reported too: an idle stream should cost nothing.
import type { Gate } from '../model/gate.ts';
import { openSse, type SseStream } from '../client/sse-reader.ts';
import { BACKGROUND_RUN_HEADERS, sdkClient } from '../client/sdk-run.ts';
import { rssAfterLeave, type RssAfterLeave } from '../lib/memory.ts';
import { cpuByProcess, rssMiB } from '../lib/processes.ts';
import { sleep, withDeadline } from '../lib/wait.ts';
import type { BenchServer, ServerName } from '../servers/bench-server.ts';
import { JOIN_HEADERS, joinUrl, startHeldRuns } from './held-run.ts';

export interface IdleStep {
  connections: number;
  open: number;
  rss_mib: number;
  /** Server CPU (all its processes) over the settle time, in % of one core. */
  idle_cpu_pct: number;
}

export interface IdlePoint {
  server: ServerName;
  held_runs: number;
  steps: IdleStep[];
  kib_per_connection: number;
  /** RSS at no streams plus the slope × 10,000 (the goal is under 1 GiB). */
  projected_mib_at_10k: number;
  /** Connections held at the last step that were still open. */
  max_open: number;
  /** API RSS once every stream had ended and its client left. */
  after_leave: RssAfterLeave;
}

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

export async function measureIdle(server: BenchServer, gate: Gate, steps: number[], heldRuns: number, settleMs: number): Promise<IdlePoint> {
  // Once the gate opens the held runs finish at the default pace; only the idle part is measured.
  const runs = await startHeldRuns(sdkClient(server.apiUrl, BACKGROUND_RUN_HEADERS), gate, heldRuns, 5);
  const streams: SseStream[] = [];
  const points: IdleStep[] = [];
  const cpu = () => cpuByProcess(server.processes).total;
  try {
    for (const target of steps) {
      while (streams.length < target) {
        const batch = Array.from({ length: Math.min(100, target - streams.length) }, () =>
          openSse(joinUrl(server.apiUrl, runs[streams.length % runs.length] as (typeof runs)[number]), JOIN_HEADERS, () => {}),
        );
        streams.push(...batch);
        await Promise.all(batch.map((s) => s.opened.catch(() => 0)));
      }
      await sleep(settleMs / 2);
      const cpuStart = cpu();
      // RSS moves with the garbage collector: take the median of a few readings.
      const readings: number[] = [];
      for (let i = 0; i < 5; i++) {
        await sleep(settleMs / 10);
        readings.push(rssMiB(server.apiPid));
      }
      const open = streams.filter((s) => s.isOpen()).length;
      points.push({
        connections: target,
        open,
        rss_mib: Number((readings.sort((a, b) => a - b)[2] as number).toFixed(1)),
        idle_cpu_pct: Number((((cpu() - cpuStart) / (settleMs / 2 / 1000)) * 100).toFixed(1)),
      });
    }
  } finally {
    gate.open();
    await withDeadline(Promise.all(streams.map((s) => s.closed)), 30_000, 'idle streams to end').catch(() => streams.forEach((s) => s.close()));
  }
  const afterLeave = await rssAfterLeave(server, settleMs);
  const perConnMiB = slope(
    points.map((p) => p.connections),
    points.map((p) => p.rss_mib),
  );
  return {
    server: server.name,
    held_runs: heldRuns,
    steps: points,
    kib_per_connection: Number((perConnMiB * 1024).toFixed(1)),
    projected_mib_at_10k: Number(((points[0]?.rss_mib ?? 0) + perConnMiB * 10_000).toFixed(0)),
    max_open: points.at(-1)?.open ?? 0,
    after_leave: afterLeave,
  };
}
