// The floor: the bench graph with no server around it (bench/floor/bare-graph-entry.ts, in its
// own process so the scripted model's CPU, which lives in the bench process, is not counted).
// A server's CPU per run can only get down to this; the machine's cores divided by it bound the
// runs/s of any server hosting this graph here.
import { mkdirSync } from 'node:fs';
import { startChild } from '../lib/processes.ts';
import { summariseProfiles, type ProfileSummary } from '../report/profile.ts';

export interface FloorPoint {
  concurrency: number;
  runs: number;
  runs_per_s: number;
  cpu_ms_per_run: number;
}

interface FloorLine extends FloorPoint {
  /** The measured level in µs of the monotonic clock (the warm-up left out). */
  window_us: [number, number];
}

export interface FloorMeasure {
  point: FloorPoint;
  /** Where the floor's CPU went in the level, when `--cpu-prof` asked for profiles. */
  profile: ProfileSummary | null;
}

/** `cpuProfDir`: profile the bare graph too, so a server's profile can be read against it. */
export async function measureFloor(modelUrl: string, concurrency: number, runs: number, warmupRuns: number, cpuProfDir: string | null = null): Promise<FloorMeasure> {
  const entry = new URL('../floor/bare-graph-entry.ts', import.meta.url).pathname;
  const profileArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const child = startChild('bare-graph', process.execPath, [...profileArgs, entry, JSON.stringify({ concurrency, runs, warmupRuns })], {
    cwd: process.cwd(),
    env: { ...process.env, BENCH_MODEL_URL: modelUrl, BENCH_GATED_MODEL_URL: modelUrl, LANGSMITH_TRACING: 'false' },
  });
  let out = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.child.once('exit', resolve));
  const line = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the bare graph run failed (exit ${code}): ${child.tail()}`);
  const { window_us: windowUs, ...point } = JSON.parse(line) as FloorLine;
  const pid = child.child.pid;
  if (!cpuProfDir || pid === undefined) return { point, profile: null };
  const label = `floor c=${concurrency}`;
  const [profile] = summariseProfiles(cpuProfDir, { [`bare graph c=${concurrency}`]: pid }, [{ label, startUs: windowUs[0], endUs: windowUs[1] }]);
  return { point, profile: profile ?? null };
}
