// The served floors as servers under test, driven by the same client and levels as the two
// servers. `served`: the bench graph behind a bare node:http server in one process
// (../floor/served-graph-entry.ts): what HTTP and SSE alone add to the bare graph. `relayed`: the
// same HTTP server and the graph in two processes with a Redis between them, runs queued and
// every event and checkpoint kept there (../floor/relayed-*-entry.ts): what Warren's design
// itself costs, before what Warren does on top of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectGarbage, GC_HOOK_ARGS } from '../lib/gc.ts';
import { freePort, readyOverIpc, startChild, stopChild, type Child } from '../lib/processes.ts';
import { withDeadline } from '../lib/wait.ts';
import type { BenchServer } from './bench-server.ts';
import { startRedis, type BenchRedis } from './redis.ts';

function startEntry(name: string, file: string, args: object, modelUrl: string, gatedModelUrl = modelUrl): Child {
  const entry = new URL(`../floor/${file}`, import.meta.url).pathname;
  return startChild(name, process.execPath, [...GC_HOOK_ARGS, entry, JSON.stringify(args)], {
    cwd: process.cwd(),
    ipc: true,
    env: { ...process.env, BENCH_MODEL_URL: modelUrl, BENCH_GATED_MODEL_URL: gatedModelUrl, LANGSMITH_TRACING: 'false' },
  });
}

const ready = (child: Child): Promise<void> => withDeadline(readyOverIpc(child), 60_000, `${child.name} to start`);

export async function startServedFloor(modelUrl: string): Promise<BenchServer> {
  const port = await freePort();
  const served = startEntry('served-graph', 'served-graph-entry.ts', { port }, modelUrl);
  const stop = () => stopChild(served.child);
  try {
    await ready(served);
  } catch (err) {
    await stop();
    throw err;
  }
  const pid = served.child.pid as number;
  return { name: 'floor', apiUrl: `http://127.0.0.1:${port}`, apiPid: pid, processes: { server: pid }, idsCarryAppendTime: false, collectGarbage: () => collectGarbage(served.child), stop };
}

/** `projectRoot`: whose redis.conf the Redis runs with (the durability settings production uses). */
export async function startRelayedFloor(modelUrl: string, gatedModelUrl: string, projectRoot: string, slots: number): Promise<BenchServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relayed-floor-'));
  const children: Child[] = [];
  let redis: BenchRedis | null = null;
  const stop = async () => {
    await Promise.all(children.map((c) => stopChild(c.child)));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    redis = await startRedis(projectRoot, dir);
    const port = await freePort();
    const worker = startEntry('relayed-graph', 'relayed-graph-entry.ts', { redisUrl: redis.url, slots }, modelUrl, gatedModelUrl);
    const api = startEntry('relayed-http', 'relayed-http-entry.ts', { port, redisUrl: redis.url }, modelUrl);
    children.push(worker, api);
    await Promise.all([ready(worker), ready(api)]);
    const apiPid = api.child.pid as number;
    return {
      name: 'floor',
      apiUrl: `http://127.0.0.1:${port}`,
      apiPid,
      processes: { api: apiPid, worker: worker.child.pid as number, ...redis.processes },
      // Its SSE ids are the Redis stream ids, as Warren's are.
      idsCarryAppendTime: true,
      collectGarbage: () => collectGarbage(api.child),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
