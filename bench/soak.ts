// `node bench/soak.ts [--runs N] [--concurrency C] [--sample-s S] [--idle-min M] [--heap-snapshots DIR]`
// Long life: Warren with 2 APIs and 2 workers on one Redis takes N runs (default 30,000) of a mix
// of chat and lead-agent runs with uploads and joins (workloads/soak-mix.ts). Every process's
// heap-used after a forced GC and its RSS are sampled before the load, every S seconds during it,
// at its end and each minute of M minutes idle after it (`kill -INT <pid>` of this process ends
// the load early; not Ctrl-C, which would stop the servers too). Pass: each process ends within
// 10 % of its start on both. Writes results/soak-<date>-<pid>.json and .svg (rewritten after
// every sample) and prints the table for README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { commitOf } from './lib/machine.ts';
import { integer } from './lib/options.ts';
import { flatness, sampleMemory, type FlatnessVerdict, type MemorySample } from './lib/memory-samples.ts';
import { say } from './lib/say.ts';
import { sleep } from './lib/wait.ts';
import { startGate } from './model/gate.ts';
import { startScriptedModel } from './model/scripted-model.ts';
import { soakChart } from './report/soak-chart.ts';
import { startWarren } from './servers/warren.ts';
import { soakLoad, type SoakTally } from './workloads/soak-mix.ts';

const BENCH_DIR = import.meta.dirname;
const PROJECT_ROOT = path.resolve(BENCH_DIR, '..');
const TOLERANCE = 0.1;

function readSoakOptions(argv: readonly string[]) {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      warmup: { type: 'string' },
      'sample-s': { type: 'string' },
      'idle-min': { type: 'string' },
      slots: { type: 'string' },
      'heap-snapshots': { type: 'string' },
    },
    strict: true,
  });
  return {
    runs: integer('runs', values.runs, 30_000, 1),
    concurrency: integer('concurrency', values.concurrency, 30, 1),
    /** Runs of the same mix before the start sample: module loading and the JIT are not growth. */
    warmup: integer('warmup', values.warmup, 200, 0),
    sampleMs: integer('sample-s', values['sample-s'], 60, 5) * 1000,
    idleMinutes: integer('idle-min', values['idle-min'], 2, 1),
    /** Run slots per worker process. */
    slots: integer('slots', values.slots, 25, 1),
    heapSnapshotDir: values['heap-snapshots'] ? path.resolve(values['heap-snapshots']) : null,
  };
}

interface SoakResults {
  date: string;
  /** False while the soak runs (the file is rewritten after each sample) or when it was stopped early. */
  finished: boolean;
  warren_commit: string;
  params: ReturnType<typeof readSoakOptions> & { apis: number; workers: number; tokens: number; delay_ms: number; malloc_arena_max: string | null; ld_preload: string | null };
  /** Seconds the load took (0 until it ends). */
  load_s: number;
  tally: SoakTally | null;
  /** os.loadavg() at each sample time: the machine is shared, and other programs' load shows here. */
  load_average: { t_s: number; load1: number }[];
  samples: MemorySample[];
  verdicts: FlatnessVerdict[];
  pass: boolean;
}

function table(verdicts: readonly FlatnessVerdict[]): string {
  const rows = verdicts.map(
    (v) => `| ${v.process} | ${v.start.heap_used_mib} | ${v.peak.heap_used_mib} | ${v.last.heap_used_mib} (×${v.heap_ratio}) | ${v.start.rss_mib} | ${v.peak.rss_mib} | ${v.last.rss_mib} (×${v.rss_ratio}) | ${v.pass ? 'pass' : 'fail'} |`,
  );
  return ['| process | heap start | heap peak | heap end (÷ start) | RSS start | RSS peak | RSS end (÷ start) | within 10 % |', '|---|---:|---:|---:|---:|---:|---:|---|', ...rows].join('\n');
}

async function main(): Promise<void> {
  const options = readSoakOptions(process.argv.slice(2));
  const tokens = 50;
  const delayMs = 5;
  const apis = 2;
  const workers = 2;
  const started = new Date();
  const dir = path.join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const name = `soak-${started.toISOString().slice(0, 19).replace(/:/g, '-')}-${process.pid}`;
  const results: SoakResults = {
    date: started.toISOString(),
    finished: false,
    warren_commit: commitOf(PROJECT_ROOT),
    params: { ...options, apis, workers, tokens, delay_ms: delayMs, malloc_arena_max: process.env.MALLOC_ARENA_MAX ?? null, ld_preload: process.env.LD_PRELOAD ?? null },
    load_s: 0,
    tally: null,
    load_average: [],
    samples: [],
    verdicts: [],
    pass: false,
  };
  // Written after every sample, so a soak stopped early still leaves what it measured.
  const write = () => {
    results.verdicts = flatness(results.samples, TOLERANCE);
    results.pass = results.finished && results.verdicts.every((v) => v.pass);
    writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
    const runs = results.samples.at(-1)?.runs_done ?? 0;
    const title = `Soak: ${runs} runs over ${apis} APIs and ${workers} workers, memory per process`;
    writeFileSync(path.join(dir, `${name}.svg`), soakChart(results.samples, results.verdicts, title, results.load_s || (results.samples.at(-1)?.t_s ?? 0)));
  };
  const model = await startScriptedModel({ tokens, delayMs });
  const gate = await startGate(model.url);
  say(`soak: starting Redis, ${apis} APIs and ${workers} workers × ${options.slots} runs`);
  const warren = await startWarren({
    projectRoot: PROJECT_ROOT,
    graphSpec: `${path.join(BENCH_DIR, 'graph', 'chat-graph.ts')}:chatGraph`,
    modelUrl: model.url,
    gatedModelUrl: gate.url,
    workerConcurrency: options.slots,
    workers,
    apis,
    heapSnapshotDir: options.heapSnapshotDir,
  });
  try {
    const abort = new AbortController();
    // SIGINT to this process ends the load early: the runs in flight are abandoned, the idle samples still taken.
    process.once('SIGINT', () => {
      say('soak: SIGINT, ending the load early');
      abort.abort(new Error('load ended early (SIGINT)'));
    });
    if (options.warmup > 0) {
      say(`soak: warm-up, ${options.warmup} runs`);
      await soakLoad(warren.apiBaseUrls, options.warmup, options.concurrency, abort.signal, () => undefined);
    }
    const t0 = performance.now();
    const now = () => (performance.now() - t0) / 1000;
    let done = 0;
    const sample = async (phase: string) => {
      const taken = await sampleMemory(warren.nodeProcesses, phase, now(), done);
      results.samples.push(...taken);
      results.load_average.push({ t_s: Math.round(now()), load1: Number((os.loadavg()[0] ?? 0).toFixed(2)) });
      write();
      say(`soak: ${phase} at ${Math.round(now())} s, ${done} runs: ${taken.map((s) => `${s.process} heap ${s.heap_used_mib} / RSS ${s.rss_mib} (${s.rss_before_gc_mib} before GC) MiB`).join('; ')}`);
    };
    await sample('start');
    say(`soak: ${options.runs} runs, ${options.concurrency} at a time`);
    // Samples during the load, one at a time: a slow GC delays the next sample, never doubles it.
    let sampling = Promise.resolve();
    const timer = setInterval(() => {
      sampling = sampling.then(() => sample('load')).catch((err: unknown) => say(`soak: a sample failed: ${String(err)}`));
    }, options.sampleMs);
    try {
      results.tally = await soakLoad(warren.apiBaseUrls, options.runs, options.concurrency, abort.signal, (t) => {
        results.tally = t;
        done = t.completed + Object.values(t.errors).reduce((a, b) => a + b, 0);
        if (done % 1000 === 0) say(`soak: ${done} runs ended, ${t.completed} completed`);
      });
    } finally {
      clearInterval(timer);
      await sampling;
    }
    results.load_s = Math.round(now());
    say(`soak: load done in ${results.load_s} s: ${results.tally.completed} completed, errors ${JSON.stringify(results.tally.errors)}`);
    await sample('end');
    for (let m = 1; m <= options.idleMinutes; m++) {
      await sleep(Math.max(0, t0 + (results.load_s + m * 60) * 1000 - performance.now()));
      if (m === options.idleMinutes) results.finished = true;
      await sample(`idle+${m}m`);
    }
  } finally {
    await warren.stop();
    await gate.close();
    await model.close();
  }
  say(`soak: ${results.pass ? 'PASS' : 'FAIL'}; wrote results/${name}.json and .svg`);
  process.stdout.write(`${table(results.verdicts)}\n`);
}

await main();
