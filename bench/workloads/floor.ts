// The floor: the bench graph with no server around it (bench/floor/bare-graph-entry.ts, in its
// own process so the scripted model's CPU, which lives in the bench process, is not counted).
// A server's CPU per run can only get down to this; the machine's cores divided by it bound the
// runs/s of any server hosting this graph here.
import { startChild } from '../lib/processes.ts';

export interface FloorPoint {
  concurrency: number;
  runs: number;
  runs_per_s: number;
  cpu_ms_per_run: number;
}

export async function measureFloor(modelUrl: string, concurrency: number, runs: number, warmupRuns: number): Promise<FloorPoint> {
  const entry = new URL('../floor/bare-graph-entry.ts', import.meta.url).pathname;
  const child = startChild('bare-graph', process.execPath, [entry, JSON.stringify({ concurrency, runs, warmupRuns })], {
    cwd: process.cwd(),
    env: { ...process.env, BENCH_MODEL_URL: modelUrl, BENCH_GATED_MODEL_URL: modelUrl, LANGSMITH_TRACING: 'false' },
  });
  let out = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.child.once('exit', resolve));
  const line = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the bare graph run failed (exit ${code}): ${child.tail()}`);
  return JSON.parse(line) as FloorPoint;
}
