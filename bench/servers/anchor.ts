// The anchor: the official LangGraph JS Agent Server (@langchain/langgraph-api 1.5.1, in-memory
// runtime) in its own process, started through `startServer` as `langgraphjs dev` does, serving
// the same graph module as Warren.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectGarbage, GC_HOOK_ARGS } from '../lib/gc.ts';
import { freePort, readyOverIpc, startChild, stopChild } from '../lib/processes.ts';
import { withDeadline } from '../lib/wait.ts';
import type { BenchServer } from './bench-server.ts';

export interface AnchorOptions {
  /** `<absolute module path>:<export>` of the bench graph. */
  graphSpec: string;
  modelUrl: string;
  gatedModelUrl: string;
  /** startServer's nWorkers: runs executed at once (`langgraphjs dev -n`, default 10). */
  nWorkers: number;
}

export async function startAnchor(options: AnchorOptions): Promise<BenchServer> {
  // startServer persists its in-memory state under `<cwd>/.langgraph_api`; keep that out of the repo.
  const cwd = mkdtempSync(path.join(tmpdir(), 'anchor-bench-'));
  const port = await freePort();
  const args = { port, nWorkers: options.nWorkers, cwd, graphs: { chat: options.graphSpec } };
  const entry = path.join(import.meta.dirname, 'anchor-entry.ts');
  const anchor = startChild('anchor', process.execPath, [...GC_HOOK_ARGS, entry, JSON.stringify(args)], {
    cwd,
    ipc: true,
    env: {
      ...process.env,
      // winston defaults to debug and logs every request; Warren runs at warn too.
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      LANGSMITH_TRACING: 'false',
      BENCH_MODEL_URL: options.modelUrl,
      BENCH_GATED_MODEL_URL: options.gatedModelUrl,
    },
  });
  const stop = async () => {
    await stopChild(anchor.child);
    rmSync(cwd, { recursive: true, force: true });
  };
  try {
    await withDeadline(readyOverIpc(anchor), 60_000, 'the anchor start');
  } catch (err) {
    await stop();
    throw err;
  }
  const pid = anchor.child.pid as number;
  return {
    name: 'anchor',
    apiUrl: `http://127.0.0.1:${port}`,
    apiPid: pid,
    processes: { server: pid },
    idsCarryAppendTime: false,
    collectGarbage: () => collectGarbage(anchor.child),
    stop,
  };
}
