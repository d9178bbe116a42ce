// `npm run bench [-- --quick] [--only a,b] [--servers warren] [--cpu-prof DIR] [--heap-snapshots DIR] [--warren-root DIR] [--slots N] [--tokens N] [--delay-ms N] [--redis-cluster]`
// Benchmarks Warren against the official LangGraph JS Agent Server on this machine, one server at
// a time, with the same graph, scripted model and SDK client, then writes
// results/<date>.json, results/<date>.svg and the results block of README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGate, type Gate } from './model/gate.ts';
import { startScriptedModel } from './model/scripted-model.ts';
import { makeTextPdf } from './docs/make-pdf.ts';
import { reportPdf } from '../test/fixtures/documents/src/pdf-builder.ts';
import { scannedPdf } from '../test/fixtures/documents/src/scan.ts';
import { commitOf, machineInfo, packageVersions } from './lib/machine.ts';
import { readOptions, WORKLOADS, type BenchOptions } from './lib/options.ts';
import type { BenchResults, Series } from './lib/results.ts';
import { DEFAULT_QUIET, waitForQuiet } from './lib/quiet.ts';
import { say } from './lib/say.ts';
import { resultsChart } from './report/chart.ts';
import { monotonicMicros, profileMarkdown, summariseProfiles, type ProfileSummary, type ProfileWindow } from './report/profile.ts';
import { resultsBlock, updateReadme } from './report/readme.ts';
import { startAnchor } from './servers/anchor.ts';
import type { BenchServer } from './servers/bench-server.ts';
import { startRelayedFloor, startServedFloor } from './servers/served-floor.ts';
import { startWarren, type WarrenServer } from './servers/warren.ts';
import { fixtureDocuments, loadSandbox, measureConversions } from './workloads/conversion.ts';
import { measureFanout, type FanoutPoint } from './workloads/fanout.ts';
import { FIRST_TOKEN_STAGES, measureFirstToken, type FirstTokenStage } from './workloads/first-token.ts';
import { measureFloor } from './workloads/floor.ts';
import { measureIdle } from './workloads/idle.ts';
import { measureModelsUnderLoad } from './workloads/models-under-load.ts';
import { measureStalledFanout } from './workloads/stalled-fanout.ts';
import { measureRedisCommands } from './workloads/redis-commands.ts';
import { measureStoreSearch } from './workloads/store-search.ts';
import { measureThroughput, type ThroughputLevel, type ThroughputPoint } from './workloads/throughput.ts';

const BENCH_DIR = import.meta.dirname;
const PROJECT_ROOT = path.resolve(BENCH_DIR, '..');
const ANCHOR_CLI_DEFAULT_WORKERS = 10;
const DOCUMENT_DIRS = [path.resolve(PROJECT_ROOT, '..', 'shared', 'fixtures', 'documents', 'markitdown'), path.join(PROJECT_ROOT, 'test', 'fixtures', 'documents')];

interface Context {
  options: BenchOptions;
  /** The checkout whose dist/ is measured: this one unless --warren-root names another. */
  warrenRoot: string;
  gate: Gate;
  results: BenchResults;
  /** Throughput levels measured while Warren's processes write CPU profiles (`--cpu-prof`). */
  profileWindows: ProfileWindow[];
  /** The bare graph's levels, profiled when Warren's processes are (`--cpu-prof`). */
  floorProfiles: ProfileSummary[];
}

/** Waits for other programs to leave the CPU; notes it when they never do. */
async function quiet(ctx: Context, server: Pick<BenchServer, 'processes'> | null, what: string): Promise<void> {
  if (ctx.options.quietWaitMs === 0) return;
  const busy = await waitForQuiet(server?.processes ?? {}, { ...DEFAULT_QUIET, maxWaitMs: ctx.options.quietWaitMs });
  if (busy !== null) ctx.results.notes.push(`${what} started while other programs used ${busy}% of a core.`);
}

/**
 * A fresh server loads the graph and compiles its hot paths during its first runs and first
 * fan-out; without this the first workload measured start-up, not the server.
 */
async function warmUp(ctx: Context, server: BenchServer, graph: string, connections = true): Promise<void> {
  const fanout = connections && graph === 'chat' && (['fanout', 'idle', 'stalled-fanout'] as const).some((w) => ctx.options.workloads.has(w));
  say(`${server.name}: warm-up on ${graph} (${ctx.options.warmupRuns} runs${fanout ? ', one 100-client fan-out' : ''})`);
  await measureThroughput(server, graph, { concurrency: 20, runs: ctx.options.warmupRuns }, ctx.options.levelDeadlineMs);
  if (fanout) await measureFanout(server, ctx.gate, 100, ctx.options.tokens, ctx.options.delayMs);
}

interface SeriesSpec {
  graph: string;
  slots: number;
  workers: number;
  label: string;
  levels: readonly ThroughputLevel[];
}

/** Each throughput level on `server`, each on a quiet machine; Warren's levels are profile windows. */
async function throughputLevels(ctx: Context, server: BenchServer, graph: string, label: string, levels: readonly ThroughputLevel[]): Promise<ThroughputPoint[]> {
  const points: ThroughputPoint[] = [];
  for (const level of levels) {
    await quiet(ctx, server, `${label}, c=${level.concurrency}`);
    const startUs = monotonicMicros();
    const point = await measureThroughput(server, graph, level, ctx.options.levelDeadlineMs);
    if (server.name === 'warren') ctx.profileWindows.push({ label: `${graph} c=${level.concurrency}`, startUs, endUs: monotonicMicros() });
    const byProcess = Object.entries(point.cpu_ms_per_run_by_process);
    const cpu = `${point.server_cpu_ms_per_run} ms CPU per run${byProcess.length > 1 ? ` (${byProcess.map(([p, ms]) => `${p} ${ms}`).join(', ')})` : ''}`;
    say(`${label}: c=${level.concurrency} → ${point.runs_per_s} runs/s, ${cpu}, end p99 ${point.end_ms.p99} ms, errors ${point.errors}`);
    points.push(point);
  }
  return points;
}

async function series(ctx: Context, server: BenchServer, spec: SeriesSpec): Promise<void> {
  const { graph, slots, workers, label, levels } = spec;
  const clientCpu = process.cpuUsage();
  const entry: Series = { label, server: server.name, graph, slots, workers, points: await throughputLevels(ctx, server, graph, label, levels), client_cpu_ms_per_run: 0 };
  const used = process.cpuUsage(clientCpu);
  const runs = entry.points.reduce((sum, p) => sum + p.runs, 0);
  entry.client_cpu_ms_per_run = Number(((used.user + used.system) / 1000 / Math.max(1, runs)).toFixed(1));
  ctx.results.series.push(entry);
}

/** Each fan-out level (clients × model pace) on `server`, each on a quiet machine. */
async function fanoutLevels(ctx: Context, server: BenchServer, label: string): Promise<FanoutPoint[]> {
  const { options, gate } = ctx;
  const points: FanoutPoint[] = [];
  for (const delayMs of options.fanoutDelaysMs) {
    for (const clients of options.fanoutClients) {
      await quiet(ctx, server, `${label} fan-out to ${clients} at ${delayMs} ms/token`);
      const point = await measureFanout(server, gate, clients, options.tokens, delayMs);
      say(`${label}: fan-out ${clients} at ${delayMs} ms/token → token lag p99 ${point.token_lag_ms.p99} ms, ${point.complete_clients} complete`);
      points.push(point);
    }
  }
  return points;
}

/** The connection workloads first, while the server is fresh, then throughput. */
async function connectionWorkloads(ctx: Context, server: BenchServer): Promise<void> {
  const { options, gate, results } = ctx;
  if (options.workloads.has('idle')) {
    await quiet(ctx, server, `${server.name} idle streams`);
    const steps = server.name === 'anchor' ? options.idleSteps.filter((n) => n <= options.anchorIdleMax) : options.idleSteps;
    say(`${server.name}: idle streams up to ${steps.at(-1)}`);
    const idle = await measureIdle(server, gate, steps, options.idleHeldRuns, options.idleSettleMs);
    say(`${server.name}: ${idle.max_open} streams open, ${idle.kib_per_connection} KiB each`);
    results.idle.push(idle);
  }
  if (options.workloads.has('fanout')) results.fanout.push(...(await fanoutLevels(ctx, server, server.name)));
  // Warren only: the anchor's relay re-filters its listeners for every event (see README), so
  // 2,000 readers of a 2,500-token run would take it far past the bench's bounds.
  if (options.workloads.has('stalled-fanout') && server.name === 'warren') {
    const params = options.stalledFanout;
    await quiet(ctx, server, `${server.name} ${params.readers} readers and ${params.stalled} stalled sockets`);
    say(`${server.name}: ${params.readers} readers and ${params.stalled} stalled sockets on one ${params.tokens}-token run`);
    const point = await measureStalledFanout(server, gate, params);
    say(`${server.name}: RSS ${point.rss_before_mib} → peak ${point.rss_peak_mib} MiB; after they left ${point.after_leave.right_after_mib}, ${point.after_leave.settled_mib} after ${point.after_leave.settled_s} s, ${point.after_leave.after_gc_mib} after a GC`);
    results.stalled_fanout.push(point);
  }
}

async function runAnchor(ctx: Context, modelUrl: string, graphSpec: string): Promise<void> {
  const { options } = ctx;
  if (!options.servers.has('anchor')) return;
  if (!(['throughput', 'fanout', 'idle'] as const).some((w) => options.workloads.has(w))) return;
  say(`anchor: starting @langchain/langgraph-api with ${options.slots} workers`);
  const anchor = await startAnchor({ graphSpec, modelUrl, gatedModelUrl: ctx.gate.url, nWorkers: options.slots });
  try {
    await warmUp(ctx, anchor, 'chat');
    await connectionWorkloads(ctx, anchor);
    if (options.workloads.has('throughput')) await series(ctx, anchor, { graph: 'chat', slots: options.slots, workers: 1, label: `anchor, ${options.slots} workers`, levels: options.levels });
  } finally {
    await anchor.stop();
  }
  if (options.anchorDefault && options.workloads.has('throughput') && options.slots !== ANCHOR_CLI_DEFAULT_WORKERS) {
    say(`anchor: restarting with its CLI default of ${ANCHOR_CLI_DEFAULT_WORKERS} workers`);
    const byDefault = await startAnchor({ graphSpec, modelUrl, gatedModelUrl: ctx.gate.url, nWorkers: ANCHOR_CLI_DEFAULT_WORKERS });
    try {
      await warmUp(ctx, byDefault, 'chat', false);
      const label = `anchor, ${ANCHOR_CLI_DEFAULT_WORKERS} workers`;
      await series(ctx, byDefault, { graph: 'chat', slots: ANCHOR_CLI_DEFAULT_WORKERS, workers: 1, label, levels: options.levels });
    } finally {
      await byDefault.stop();
    }
  }
}

/** Where each level's CPU went, from the profiles the stopped processes wrote: printed and kept beside them. */
function writeProfileSummary(ctx: Context, dir: string, pids: Readonly<Record<string, number>>): void {
  // The floor's levels first: each server level reads against the bare graph's.
  const summaries = [...ctx.floorProfiles, ...summariseProfiles(dir, pids, ctx.profileWindows)];
  ctx.results.profiles = summaries;
  const file = path.join(dir, 'summary.md');
  writeFileSync(file, profileMarkdown(summaries));
  say(`warren: CPU profiles summarised in ${file}`);
}

async function runWarren(ctx: Context, modelUrl: string, graphSpec: string): Promise<void> {
  const { options, results } = ctx;
  if (!options.servers.has('warren')) return;
  // Workloads that start no server of their own.
  if (![...options.workloads].some((w) => w !== 'conversion' && w !== 'floor' && w !== 'store-search')) return;
  say(`warren: starting Redis, API and worker (${options.slots} runs at once)`);
  const warren: WarrenServer = await startWarren({
    projectRoot: ctx.warrenRoot,
    graphSpec,
    modelUrl,
    gatedModelUrl: ctx.gate.url,
    workerConcurrency: options.slots,
    cpuProfDir: options.cpuProfDir,
    heapSnapshotDir: options.heapSnapshotDir,
    redisCluster: options.redisCluster,
  });
  const onCluster = options.redisCluster ? ' on a 3-master Redis Cluster' : '';
  try {
    await warmUp(ctx, warren, 'chat');
    await connectionWorkloads(ctx, warren);
    if (options.workloads.has('throughput')) {
      await series(ctx, warren, { graph: 'chat', slots: options.slots, workers: 1, label: `Warren, 1 worker × ${options.slots}${onCluster}`, levels: options.levels });
    }
    if (options.workloads.has('first-token')) await firstToken(ctx, warren);
    if (options.workloads.has('lead-agent')) {
      await warmUp(ctx, warren, 'lead_agent');
      await series(ctx, warren, { graph: 'lead_agent', slots: options.slots, workers: 1, label: 'Warren lead_agent', levels: options.leadAgentLevels });
    }
    if (options.workloads.has('models-under-load')) {
      await quiet(ctx, warren, 'GET /api/models under conversion load');
      const pdf = makeTextPdf(options.largePdfMiB);
      say(`warren: GET /api/models while ${options.largePdfUploads} × ${(pdf.length / 1048576).toFixed(1)} MiB PDFs convert`);
      results.models_under_load = await measureModelsUnderLoad(warren.baseUrl, pdf, options.largePdfUploads, options.quick ? 2000 : 5000);
      say(`warren: /api/models p99 idle ${results.models_under_load.idle_ms.p99} ms, under load ${results.models_under_load.under_load_ms.p99} ms`);
    }
    // Last: MONITOR slows Redis for everything measured while it runs.
    if (options.workloads.has('redis-commands')) await redisCommands(ctx, warren);
  } finally {
    await warren.stop();
  }
  if (options.cpuProfDir) writeProfileSummary(ctx, options.cpuProfDir, warren.processes);
  if (options.warrenScaleOut && options.workloads.has('throughput')) {
    // Same 50 run slots, split over two worker processes: what scaling out buys on this machine.
    const perWorker = Math.ceil(options.slots / 2);
    say(`warren: restarting with 2 workers × ${perWorker} runs`);
    const scaled = await startWarren({ projectRoot: ctx.warrenRoot, graphSpec, modelUrl, gatedModelUrl: ctx.gate.url, workerConcurrency: perWorker, workers: 2, redisCluster: options.redisCluster });
    try {
      await warmUp(ctx, scaled, 'chat', false);
      await series(ctx, scaled, { graph: 'chat', slots: perWorker * 2, workers: 2, label: `Warren, 2 workers × ${perWorker}`, levels: options.levels });
    } finally {
      await scaled.stop();
    }
  }
}

/** Where the time to first token goes on Warren, at each concurrency, on a quiet machine. */
async function firstToken(ctx: Context, warren: WarrenServer): Promise<void> {
  ctx.results.first_token = [];
  for (const level of ctx.options.firstToken) {
    await quiet(ctx, warren, `first token at c=${level.concurrency}`);
    const point = await measureFirstToken(warren, level.concurrency, level.runs, ctx.options.levelDeadlineMs);
    const p50 = (stage: FirstTokenStage) => point.stages[stage].p50;
    say(`warren: first token at c=${level.concurrency} (p50 ms from the request): ${FIRST_TOKEN_STAGES.map((s) => `${s} ${p50(s)}`).join(', ')}; errors ${point.errors}`);
    ctx.results.first_token.push(point);
  }
}

/** Redis commands per run of each graph, counted with MONITOR (one redis-server only). */
async function redisCommands(ctx: Context, warren: WarrenServer): Promise<void> {
  if (warren.onCluster) {
    ctx.results.notes.push('Redis commands per run are counted on one redis-server, not on a Redis Cluster.');
    return;
  }
  const { runs, concurrency } = ctx.options.redisCommands;
  ctx.results.redis_commands = [];
  for (const graph of ['chat', 'lead_agent']) {
    say(`warren: Redis commands per run of ${graph} (${runs} runs at ${concurrency} at once, MONITOR)`);
    const point = await measureRedisCommands(warren, warren.redisUrl, ctx.warrenRoot, graph, ctx.options.redisCommands, ctx.options.levelDeadlineMs);
    say(`warren: ${graph}: ${point.commands_per_run} commands per run (${Object.entries(point.by_process).map(([p, n]) => `${p} ${n}`).join(', ')})`);
    ctx.results.redis_commands.push(point);
  }
}

/** The graph alone, at each throughput level's concurrency: first, on a quiet machine. */
async function runFloor(ctx: Context, modelUrl: string): Promise<void> {
  if (!ctx.options.workloads.has('floor')) return;
  for (const level of ctx.options.levels) {
    await quiet(ctx, null, `bare graph, c=${level.concurrency}`);
    const { point, profile } = await measureFloor(modelUrl, level.concurrency, level.runs, ctx.options.warmupRuns, ctx.options.cpuProfDir);
    say(`bare graph: c=${level.concurrency} → ${point.runs_per_s} runs/s, ${point.cpu_ms_per_run} ms CPU per run`);
    ctx.results.floor.push(point);
    if (profile) ctx.floorProfiles.push(profile);
  }
  // Then the same graph served over HTTP: by a bare node:http server (what HTTP and SSE alone
  // add), and relayed through Redis between two processes (what Warren's design itself adds).
  ctx.results.served_floor = await servedLevels(ctx, 'served graph', await startServedFloor(modelUrl));
  const relayed = await startRelayedFloor(modelUrl, ctx.gate.url, ctx.warrenRoot, ctx.options.slots);
  ctx.results.relayed_floor = await servedLevels(ctx, 'relayed graph', relayed, async () => {
    // Fan-out through the design with nothing on top: what one relay of Redis to K sockets costs
    // here. Its first fan-out warms the join path up, as the servers' warm-up does.
    if (!ctx.options.workloads.has('fanout')) return;
    await measureFanout(relayed, ctx.gate, 100, ctx.options.tokens, ctx.options.delayMs);
    ctx.results.relayed_fanout = await fanoutLevels(ctx, relayed, 'relayed graph');
  });
}

/** Throughput levels on a floor server, then `more` on it, then it stops. */
async function servedLevels(ctx: Context, label: string, server: BenchServer, more: () => Promise<void> = async () => {}): Promise<ThroughputPoint[]> {
  try {
    say(`${label}: warm-up (${ctx.options.warmupRuns} runs)`);
    await measureThroughput(server, 'chat', { concurrency: 20, runs: ctx.options.warmupRuns }, ctx.options.levelDeadlineMs);
    const points = await throughputLevels(ctx, server, 'chat', label, ctx.options.levels);
    await more();
    return points;
  } finally {
    await server.stop();
  }
}

async function runConversion(ctx: Context): Promise<void> {
  if (!ctx.options.workloads.has('conversion')) return;
  const dirs = DOCUMENT_DIRS.filter((d) => existsSync(d));
  for (const d of DOCUMENT_DIRS) if (!existsSync(d)) ctx.results.notes.push(`Document fixtures missing at ${path.relative(PROJECT_ROOT, d)}; conversion used the others.`);
  // The fixtures are small, so their per-MiB figure is mostly the sandbox's fixed start-up cost;
  // the generated PDF, in a row of its own, shows the per-MiB cost of the parser itself.
  const large = { name: `generated-${ctx.options.largePdfMiB}mib.pdf`, bytes: makeTextPdf(ctx.options.largePdfMiB), format: `pdf (generated, ${ctx.options.largePdfMiB} MiB)` };
  // Structure (headings, lists, borderless tables over 50 pages) and OCR of scanned pages each
  // get a row; OCR needs Tesseract, and its row is left out, with a note, without it.
  const report = { name: 'generated-report-50p.pdf', bytes: reportPdf(50), format: 'pdf (generated, 50 pages, headings + tables)' };
  const docs = [...fixtureDocuments(dirs), large, report];
  if (hasTesseract()) {
    const lines = ['Harbour inspection notes', 'Berth seven needs new fenders', 'Signed by the harbour master'];
    docs.push({ name: 'generated-scan-3p.pdf', bytes: scannedPdf(lines, lines, lines), format: 'pdf (scanned 3 pages, OCR)', ocr: true });
  } else {
    ctx.results.notes.push('Tesseract is not installed: the OCR row of the conversion table was left out.');
  }
  await quiet(ctx, null, 'conversion');
  say(`conversion: ${docs.length} documents × ${ctx.options.conversionRepeats}`);
  const sandbox = await loadSandbox(ctx.warrenRoot);
  try {
    ctx.results.conversion = await measureConversions(sandbox, docs, ctx.options.conversionRepeats);
  } finally {
    await sandbox.close();
  }
}

async function runStoreSearch(ctx: Context): Promise<void> {
  if (!ctx.options.workloads.has('store-search') || !ctx.options.servers.has('warren')) return;
  if (!existsSync(path.join(ctx.warrenRoot, 'dist', 'src', 'store', 'store-items.js'))) {
    ctx.results.notes.push('The measured checkout has no long-term store: store-search was left out.');
    return;
  }
  await quiet(ctx, null, 'store search');
  ctx.results.store_search = await measureStoreSearch(ctx.warrenRoot, ctx.options.storeSearch);
  for (const p of ctx.results.store_search) {
    say(`store search: ${p.items} items × ${p.dims} dims (cache ${p.cacheMb} MiB) → first ${p.first_query_ms} ms, then p50 ${p.query_ms_p50} ms; ${p.put_per_s} puts/s, ${p.redis_bytes_per_item} B/item in Redis`);
  }
}

function hasTesseract(): boolean {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function redisVersion(): string {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'missing';
  }
}

function stamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/:/g, '-');
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const warrenRoot = options.warrenRoot ?? PROJECT_ROOT;
  if (!existsSync(path.join(warrenRoot, 'dist', 'src', 'main.js'))) throw new Error(`${warrenRoot}/dist/ is missing: run \`npm run build\` first (npm run bench does).`);
  const started = new Date();
  const [load1 = 0] = os.loadavg();
  if (load1 > 1) say(`warning: load average ${load1.toFixed(2)} before the start: other programs are using this machine, and the numbers will show it`);
  const results: BenchResults = {
    date: started.toISOString(),
    mode: options.quick ? 'quick' : 'full',
    duration_s: 0,
    machine: machineInfo(redisVersion()),
    load_average: { start: os.loadavg().map((l) => Number(l.toFixed(2))), end: [] },
    versions: packageVersions(BENCH_DIR, warrenRoot),
    warren_commit: commitOf(warrenRoot),
    params: { tokens: options.tokens, delay_ms: options.delayMs, slots: options.slots, anchor_default_workers: options.anchorDefault ? ANCHOR_CLI_DEFAULT_WORKERS : null },
    series: [],
    floor: [],
    fanout: [],
    idle: [],
    stalled_fanout: [],
    conversion: [],
    models_under_load: null,
    notes: [],
  };
  const model = await startScriptedModel({ tokens: options.tokens, delayMs: options.delayMs });
  const gate = await startGate(model.url);
  const ctx: Context = { options, warrenRoot, gate, results, profileWindows: [], floorProfiles: [] };
  const graphSpec = `${path.join(BENCH_DIR, 'graph', 'chat-graph.ts')}:chatGraph`;
  try {
    await runFloor(ctx, model.url);
    await runAnchor(ctx, model.url, graphSpec);
    await runWarren(ctx, model.url, graphSpec);
    await runConversion(ctx);
    await runStoreSearch(ctx);
  } finally {
    await gate.close();
    await model.close();
  }
  // Warren's summary holds the floor's too; without a Warren run (`--servers anchor`), the floor's alone.
  if (options.cpuProfDir && !results.profiles && ctx.floorProfiles.length > 0) writeProfileSummary(ctx, options.cpuProfDir, {});
  results.duration_s = Math.round((Date.now() - started.getTime()) / 1000);
  results.load_average.end = os.loadavg().map((l) => Number(l.toFixed(2)));

  const dir = path.join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const name = `${stamp(started)}${options.quick ? '-quick' : ''}`;
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(dir, `${name}.svg`), resultsChart(results));
  // A partial run (--only) would blank the other tables, and a quick one would replace a full
  // run's figures with noisier ones: README shows complete full runs only.
  const complete = !options.quick && options.workloads.size === WORKLOADS.length && options.servers.size === 2 && !options.cpuProfDir && !options.heapSnapshotDir && !options.warrenRoot;
  if (complete) updateReadme(path.join(BENCH_DIR, 'README.md'), resultsBlock(results, `${name}.json`, `${name}.svg`));
  say(`wrote results/${name}.json, results/${name}.svg${complete ? ' and README.md' : ''} in ${results.duration_s} s`);
}

await main();
