// Issue #32: the one LangGraph.js project with everything (langgraph-app-suite.ts says what it
// has) started the way a user starts it: Warren's own `npm start` entry (dist/src/cli/local-stack.js)
// with a config.yaml whose `langgraph_json` points at the project, unchanged; the stack spawns its
// own Redis on its own port (REDIS_URL) with its data in a temporary WARREN_HOME, then one API and
// one worker. The same checks run on two API processes and two workers in langgraph-app.test.ts.
// Whatever happens, the stack and everything it spawned are stopped: by SIGTERM first, then by
// SIGKILL to each process left in its tree (and, should this file's worker die, by the stack's own
// parent watch and the suite's leftovers sweep).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { buildDist, ROOT } from '../support/cluster.js';
import { tracked, trackedDir } from '../support/leftovers.js';
import { localStackEnv } from '../support/local-stack-env.js';
import { alive, descendants, killTree } from '../support/process-tree.js';
import { waitFor } from '../support/wait-for.js';
import { DEPLOYMENT_KEY, describeLangGraphApp, LANGGRAPH_APP } from './langgraph-app-suite.js';

let home: string;
let stack: ChildProcess | undefined;
let base: string;
const output: string[] = [];

beforeAll(async () => {
  buildDist();
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-npm-start-')));
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify({ langgraph_json: LANGGRAPH_APP }));
  const { port, env } = await localStackEnv(home, { WARREN_CONFIG: configFile, WARREN_API_KEYS: DEPLOYMENT_KEY });
  base = `http://127.0.0.1:${port}`;
  // What `npm start` runs once its `prestart` has built dist/ (buildDist above).
  stack = tracked(
    spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'local-stack.js')], {
      cwd: home,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  stack.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
  stack.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
  const exited = () => stack?.exitCode !== null || stack?.signalCode !== null;
  // Bundling the UI and loading the project's packages take a while on a loaded machine.
  await waitFor(async () => {
    if (exited()) throw new Error(`npm start exited (${stack?.exitCode ?? stack?.signalCode}):\n${output.join('')}`);
    return (await fetch(`${base}/ok`).catch(() => null))?.ok;
  }, 'the stack to answer /ok', 240_000);
}, 300_000);

afterAll(async () => {
  if (stack?.pid) {
    const tree = [stack.pid, ...descendants(stack.pid)];
    stack.kill('SIGTERM');
    try {
      await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
    } finally {
      for (const pid of tree) if (alive(pid)) killTree(pid);
    }
  }
  if (home) rmSync(home, { recursive: true, force: true });
}, 60_000);

describeLangGraphApp(() => ({ replicas: [base] }));
