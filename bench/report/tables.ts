// Markdown tables of one results file, for bench/README.md. Ratios are Warren / anchor: above 1
// is better for throughput, below 1 is better for latencies.
import type { BenchResults, Series } from '../lib/results.ts';
import { FIRST_TOKEN_STAGES } from '../workloads/first-token.ts';
import type { ThroughputPoint } from '../workloads/throughput.ts';
import { ratio, type Summary } from '../lib/stats.ts';

const fmt = (v: number | null | undefined, digits = 1): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));
const pair = (s: Summary | null | undefined, digits = 0): string => (s && s.n > 0 ? `${fmt(s.p50, digits)} / ${fmt(s.p99, digits)}` : '–');
const x = (v: number | null): string => (v === null ? '–' : `${v.toFixed(2)}×`);
const row = (cells: readonly (string | number)[]): string => `| ${cells.join(' | ')} |`;
const header = (cells: readonly string[]): string => `${row(cells)}\n${row(cells.map(() => '---'))}`;

function pick(results: BenchResults, server: 'warren' | 'anchor', graph: string, slots: number, workers = 1): Series | undefined {
  return results.series.find((s) => s.server === server && s.graph === graph && s.slots === slots && s.workers === workers);
}

const scaledOut = (results: BenchResults): Series | undefined => results.series.find((s) => s.server === 'warren' && s.graph === 'chat' && s.workers > 1);

export function throughputTable(results: BenchResults): string {
  const warren = pick(results, 'warren', 'chat', results.params.slots);
  const anchor = pick(results, 'anchor', 'chat', results.params.slots);
  const anchorDefault = results.params.anchor_default_workers !== null ? pick(results, 'anchor', 'chat', results.params.anchor_default_workers) : undefined;
  const scaled = scaledOut(results);
  if (!warren || !anchor) return '_Throughput was not measured in this run._';
  const lines = [
    header([
      'concurrency',
      'anchor runs/s',
      'Warren runs/s',
      'ratio',
      ...(anchorDefault ? [`anchor (${results.params.anchor_default_workers} workers) runs/s`, 'ratio'] : []),
      ...(scaled ? [`${scaled.label} runs/s`, 'ratio'] : []),
      'anchor end p50 / p99 ms',
      'Warren end p50 / p99 ms',
      'ratio p99',
      'errors A / W',
      'other programs, % of a core A / W',
    ]),
  ];
  for (const w of warren.points) {
    const a = anchor.points.find((p) => p.concurrency === w.concurrency);
    const d = anchorDefault?.points.find((p) => p.concurrency === w.concurrency);
    const sc = scaled?.points.find((p) => p.concurrency === w.concurrency);
    lines.push(
      row([
        w.concurrency,
        fmt(a?.runs_per_s),
        fmt(w.runs_per_s),
        x(ratio(w.runs_per_s, a?.runs_per_s)),
        ...(anchorDefault ? [fmt(d?.runs_per_s), x(ratio(w.runs_per_s, d?.runs_per_s))] : []),
        ...(scaled ? [fmt(sc?.runs_per_s), x(ratio(sc?.runs_per_s, a?.runs_per_s))] : []),
        pair(a?.end_ms),
        pair(w.end_ms),
        x(ratio(w.end_ms.p99, a?.end_ms.p99)),
        `${a?.errors ?? '–'} / ${w.errors}`,
        `${a?.foreign_cpu_pct ?? '–'} / ${w.foreign_cpu_pct}`,
      ]),
    );
  }
  return lines.join('\n');
}

export function latencyTable(results: BenchResults): string {
  const warren = pick(results, 'warren', 'chat', results.params.slots);
  const anchor = pick(results, 'anchor', 'chat', results.params.slots);
  if (!warren || !anchor) return '';
  const lines = [
    header([
      'concurrency',
      'anchor TTFT p50 / p99',
      'Warren TTFT p50 / p99',
      'ratio p50 / p99',
      'anchor last event p50 / p99',
      'Warren last event p50 / p99',
      'anchor CPU ms/run',
      'Warren CPU ms/run (API + worker + Redis)',
      'busiest process, % of a core A / W',
    ]),
  ];
  for (const w of warren.points) {
    const a = anchor.points.find((p) => p.concurrency === w.concurrency);
    lines.push(
      row([
        w.concurrency,
        pair(a?.ttft_ms),
        pair(w.ttft_ms),
        `${x(ratio(w.ttft_ms.p50, a?.ttft_ms.p50))} / ${x(ratio(w.ttft_ms.p99, a?.ttft_ms.p99))}`,
        pair(a?.last_event_ms),
        pair(w.last_event_ms),
        fmt(a?.server_cpu_ms_per_run),
        `${fmt(w.server_cpu_ms_per_run)} (${['api', 'worker', 'redis'].map((n) => fmt(w.cpu_ms_per_run_by_process[n])).join(' + ')})`,
        `${a?.busiest_process.cpu_pct ?? '–'} / ${w.busiest_process.cpu_pct} (${w.busiest_process.name})`,
      ]),
    );
  }
  return lines.join('\n');
}

/**
 * The graph with no server, then served by a bare node:http server, then relayed through Redis
 * between two processes (Warren's design with nothing on top), beside both servers' CPU per run.
 * The machine's cores divided by a CPU cost per run is the most runs/s that cost allows here,
 * clients aside.
 */
export function floorTable(results: BenchResults): string {
  if (results.floor.length === 0) return '_The bare graph was not measured in this run._';
  const warren = pick(results, 'warren', 'chat', results.params.slots);
  const anchor = pick(results, 'anchor', 'chat', results.params.slots);
  const cores = results.machine.cores;
  const ceiling = (cpuMs: number | undefined) => (cpuMs ? fmt((cores * 1000) / cpuMs, 0) : '–');
  const lines = [
    header([
      'concurrency',
      'bare graph runs/s (one process)',
      'bare graph CPU ms/run',
      `runs/s its CPU allows on ${cores} cores`,
      'served by bare node:http: runs/s',
      'served: CPU ms/run',
      'relayed through Redis: runs/s',
      'relayed: CPU ms/run',
      'anchor CPU ms/run',
      'Warren CPU ms/run',
      'best ratio a server at the floor could reach',
    ]),
  ];
  for (const f of results.floor) {
    const a = anchor?.points.find((p) => p.concurrency === f.concurrency);
    const w = warren?.points.find((p) => p.concurrency === f.concurrency);
    const served = results.served_floor?.find((p) => p.concurrency === f.concurrency);
    const relayed = results.relayed_floor?.find((p) => p.concurrency === f.concurrency);
    lines.push(
      row([
        f.concurrency,
        fmt(f.runs_per_s),
        fmt(f.cpu_ms_per_run, 2),
        ceiling(f.cpu_ms_per_run),
        fmt(served?.runs_per_s),
        fmt(served?.server_cpu_ms_per_run),
        fmt(relayed?.runs_per_s),
        fmt(relayed?.server_cpu_ms_per_run),
        fmt(a?.server_cpu_ms_per_run),
        fmt(w?.server_cpu_ms_per_run),
        a ? x(ratio(a.server_cpu_ms_per_run, f.cpu_ms_per_run)) : '–',
      ]),
    );
  }
  return lines.join('\n');
}

export function leadAgentTable(results: BenchResults): string {
  const lead = results.series.find((s) => s.graph === 'lead_agent');
  const chat = pick(results, 'warren', 'chat', results.params.slots);
  if (!lead) return '_lead_agent was not measured in this run._';
  const lines = [header(['concurrency', 'runs/s', 'vs chat graph', 'TTFT p50 / p99 ms', 'end p50 / p99 ms', 'server CPU ms/run', 'errors'])];
  for (const p of lead.points) {
    const c = chat?.points.find((q) => q.concurrency === p.concurrency);
    lines.push(row([p.concurrency, fmt(p.runs_per_s), x(ratio(p.runs_per_s, c?.runs_per_s)), pair(p.ttft_ms), pair(p.end_ms), fmt(p.server_cpu_ms_per_run), p.errors]));
  }
  return lines.join('\n');
}

export function fanoutTable(results: BenchResults): string {
  if (results.fanout.length === 0) return '_Fan-out was not measured in this run._';
  const keys = [...new Set(results.fanout.map((f) => `${f.delay_ms}:${f.clients}`))];
  const lines = [
    header([
      'ms/token',
      'clients',
      'anchor token lag p50 / p99 ms',
      'Warren token lag p50 / p99 ms',
      'ratio p99',
      'relayed floor token lag p50 / p99 ms',
      'Warren append→client p50 / p99 ms',
      'Warren API append→write p50 / p99 (≤ bucket, ms)',
      'spread p99 ms A / W',
      'server CPU % A / W',
      'client CPU % A / W',
      'complete clients A / W',
      'other programs % A / W',
    ]),
  ];
  for (const key of keys) {
    const [delay, k] = key.split(':').map(Number);
    const find = (server: string) => results.fanout.find((f) => f.server === server && f.clients === k && f.delay_ms === delay);
    const a = find('anchor');
    const w = find('warren');
    lines.push(
      row([
        delay as number,
        k as number,
        pair(a?.token_lag_ms, 1),
        pair(w?.token_lag_ms, 1),
        x(ratio(w?.token_lag_ms.p99, a?.token_lag_ms.p99)),
        pair(results.relayed_fanout?.find((f) => f.clients === k && f.delay_ms === delay)?.token_lag_ms, 1),
        pair(w?.append_lag_ms, 1),
        w?.server_relay_lag ? `≤ ${w.server_relay_lag.p50_le_ms} / ≤ ${w.server_relay_lag.p99_le_ms}` : '–',
        `${fmt(a?.spread_ms.p99)} / ${fmt(w?.spread_ms.p99)}`,
        `${fmt(a?.server_cpu_pct, 0)} / ${fmt(w?.server_cpu_pct, 0)}`,
        `${fmt(a?.client_cpu_pct, 0)} / ${fmt(w?.client_cpu_pct, 0)}`,
        `${a?.complete_clients ?? '–'} / ${w?.complete_clients ?? '–'}`,
        `${a?.foreign_cpu_pct ?? '–'} / ${w?.foreign_cpu_pct ?? '–'}`,
      ]),
    );
  }
  return lines.join('\n');
}

export function idleTable(results: BenchResults): string {
  if (results.idle.length === 0) return '_Idle connections were not measured in this run._';
  const lines = [header(['server', 'streams held (open at the end)', 'API RSS at 0 → max MiB', 'KiB per stream', 'projected RSS at 10,000 MiB', 'server CPU while idle, % of a core (max)'])];
  for (const p of results.idle) {
    const first = p.steps[0];
    const last = p.steps.at(-1);
    lines.push(
      row([
        p.server,
        `${last?.connections ?? 0} (${p.max_open})`,
        `${fmt(first?.rss_mib)} → ${fmt(last?.rss_mib)}`,
        fmt(p.kib_per_connection),
        fmt(p.projected_mib_at_10k, 0),
        fmt(Math.max(...p.steps.map((s) => s.idle_cpu_pct))),
      ]),
    );
  }
  return lines.join('\n');
}

/** The API's RSS before fan-out and idle clients joined, and once they had all left. */
export function memoryAfterLeaveTable(results: BenchResults): string {
  const rows = [
    ...results.fanout.map((f) => ({ what: `fan-out, ${f.clients} clients at ${f.delay_ms} ms/token`, server: f.server, before: f.rss_before_mib, after: f.after_leave })),
    ...results.idle.map((p) => ({ what: `idle, ${p.steps.at(-1)?.connections ?? 0} streams`, server: p.server, before: p.steps[0]?.rss_mib, after: p.after_leave })),
  ].filter((r) => r.after !== undefined);
  if (rows.length === 0) return '';
  const lines = [header(['workload', 'server', 'API RSS before MiB', 'right after the clients left', 'after a forced GC'])];
  for (const r of rows) lines.push(row([r.what, r.server, fmt(r.before), fmt(r.after.right_after_mib), fmt(r.after.after_gc_mib)]));
  return lines.join('\n');
}

export function stalledFanoutTable(results: BenchResults): string {
  if (results.stalled_fanout.length === 0) return '_Readers with stalled sockets were not measured in this run._';
  const lines = [
    header([
      'readers + stalled sockets',
      'run (tokens, SSE bytes)',
      'complete readers',
      'failed connects (listen-queue overflows)',
      'API RSS before MiB',
      'peak',
      'right after they left',
      'settled (s later)',
      'after a forced GC',
      'V8 heap + buffers before that GC',
      'live after it (before the clients came)',
    ]),
  ];
  for (const p of results.stalled_fanout) {
    const { gc } = p.after_leave;
    lines.push(
      row([
        `${p.readers} + ${p.stalled}`,
        `${p.tokens}, ${fmt(p.run_bytes / 1e6, 2)} MB`,
        p.complete_readers,
        `${p.failed_connects} (${p.listen_overflows})`,
        fmt(p.rss_before_mib),
        fmt(p.rss_peak_mib),
        fmt(p.after_leave.right_after_mib),
        `${fmt(p.after_leave.settled_mib)} (${p.after_leave.settled_s})`,
        fmt(p.after_leave.after_gc_mib),
        `${fmt(gc.heap_total_before_mib)} + ${fmt(gc.external_before_mib)}`,
        `${fmt(gc.heap_used_mib + gc.external_mib)} (${fmt(p.gc_before.heap_used_mib + p.gc_before.external_mib)})`,
      ]),
    );
  }
  return lines.join('\n');
}

export function conversionTable(results: BenchResults): string {
  if (results.conversion.length === 0) return '_Conversion was not measured in this run._';
  const lines = [header(['format', 'documents', 'conversions (failed)', 'mean size MiB', 'ms per MiB p50 / p99', 'ms per document p50 / p99', 'MiB/s overall'])];
  for (const f of results.conversion) {
    lines.push(row([f.format, f.documents, `${f.conversions} (${f.failures})`, fmt(f.mean_doc_mib, 3), pair(f.ms_per_mib), pair(f.ms_per_document), fmt(f.mib_per_s, 2)]));
  }
  return lines.join('\n');
}

export function modelsUnderLoadTable(results: BenchResults): string {
  const m = results.models_under_load;
  if (!m) return '_API latency under conversion load was not measured in this run._';
  return [
    header(['GET /api/models', 'requests', 'p50 ms', 'p99 ms', 'max ms']),
    row(['idle API', m.idle_ms.n, fmt(m.idle_ms.p50, 2), fmt(m.idle_ms.p99, 2), fmt(m.idle_ms.max, 2)]),
    row([`${m.uploads} × ${m.pdf_mib} MiB PDFs uploading and converting`, m.under_load_ms.n, fmt(m.under_load_ms.p50, 2), fmt(m.under_load_ms.p99, 2), fmt(m.under_load_ms.max, 2)]),
    '',
    `Uploads took ${pair(m.upload_ms)} ms (p50 / p99); ${m.converted} of ${m.uploads} came back converted.`,
  ].join('\n');
}

/** Redis commands per run, by process and command (the 15 largest rows of each graph). */
export function redisCommandsTable(results: BenchResults): string {
  const points = results.redis_commands ?? [];
  if (points.length === 0) return '_Redis commands per run were not counted in this run._';
  const parts: string[] = [];
  for (const p of points) {
    const processes = Object.entries(p.by_process).map(([name, n]) => `${name} ${fmt(n)}`).join(', ');
    parts.push(`**${p.graph}** (${p.completed} runs, ${p.concurrency} at once): ${fmt(p.commands_per_run)} commands per run (${processes}).`, '');
    const lines = [header(['process', 'command', 'per run'])];
    for (const r of p.rows.slice(0, 15)) lines.push(row([r.process, `\`${r.command}\``, fmt(r.per_run, 2)]));
    parts.push(lines.join('\n'), '');
  }
  return parts.join('\n').trimEnd();
}

/** Warren's path to the first token, stage by stage (ms from the runs.stream request). */
export function firstTokenTable(results: BenchResults): string {
  const points = results.first_token ?? [];
  if (points.length === 0) return '_The path to the first token was not measured in this run._';
  const lines = [header(['concurrency', 'runs/s', ...FIRST_TOKEN_STAGES.map((s) => `${s} p50 / p99`), 'errors'])];
  for (const p of points) lines.push(row([p.concurrency, fmt(p.runs_per_s), ...FIRST_TOKEN_STAGES.map((s) => pair(p.stages[s])), p.errors]));
  return lines.join('\n');
}

/**
 * In a closed loop each client waits for its run before starting the next, so a run's life is
 * concurrency ÷ runs/s; the first token's share of that life is how a server orders starting
 * runs against streaming the others, whatever its speed.
 */
export function firstTokenShareTable(results: BenchResults): string {
  const warren = pick(results, 'warren', 'chat', results.params.slots);
  const anchor = pick(results, 'anchor', 'chat', results.params.slots);
  const columns: [string, readonly ThroughputPoint[] | undefined][] = [
    ['anchor', anchor?.points],
    ['Warren', warren?.points],
    ['served graph', results.served_floor],
    ['relayed through Redis', results.relayed_floor],
  ];
  const present = columns.filter(([, points]) => points && points.length > 0);
  if (present.length === 0) return '';
  const life = (p: ThroughputPoint) => (p.concurrency * 1000) / p.runs_per_s;
  const concurrencies = [...new Set(present.flatMap(([, points]) => (points ?? []).map((p) => p.concurrency)))].filter((c) => c > 1).sort((a, b) => a - b);
  const lines = [header(['concurrency', ...present.map(([name]) => `${name}: TTFT p50 ms / run's life ms (share)`)])];
  for (const c of concurrencies) {
    lines.push(
      row([
        c,
        ...present.map(([, points]) => {
          const p = points?.find((q) => q.concurrency === c);
          return p ? `${fmt(p.ttft_ms.p50, 0)} / ${fmt(life(p), 0)} (${fmt((100 * p.ttft_ms.p50) / life(p), 0)} %)` : '–';
        }),
      ]),
    );
  }
  return lines.join('\n');
}
