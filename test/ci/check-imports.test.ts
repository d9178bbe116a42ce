// The import lint run on small trees: it must catch each way the API could reach worker code,
// including the ones a literal-path scan misses (a dynamic import, a module path in a string).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const LINT = fileURLToPath(new URL('../../.ci/check-imports.mjs', import.meta.url));
const PROJECT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

async function lint(root: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [LINT, root]);
    return { code: 0, output: stdout };
  } catch (err) {
    const { code, stderr } = err as { code: number; stderr: string };
    return { code, output: stderr };
  }
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A temp tree with the given files (project-relative path → text). */
async function tree(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'warren-lint-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

describe('import lint', () => {
  it('passes this checkout', async () => {
    expect(await lint(PROJECT)).toEqual({ code: 0, output: 'import arrows: ok\n' });
  });

  it('catches a dynamic import from src/ into workers/', async () => {
    const root = await tree({ 'src/api.ts': "export const load = () => import('../workers/agent/graph.js');\n" });
    const { code, output } = await lint(root);
    expect(code).toBe(1);
    expect(output).toContain('src/api.ts: imports ../workers/agent/graph.js — src/ never imports workers/');
  });

  it('catches a module path into workers/ held in a string, and a computed import()', async () => {
    const root = await tree({
      'src/registry.ts': [
        "const BUILTINS = { lead_agent: 'workers/agent/lead-agent:leadAgentGraph' };",
        'export const load = (id: keyof typeof BUILTINS) => import(BUILTINS[id]);',
        '',
      ].join('\n'),
    });
    const { code, output } = await lint(root);
    expect(code).toBe(1);
    expect(output).toContain('src/registry.ts: the string "workers/agent/lead-agent:leadAgentGraph" names a path into workers/');
    expect(output).toContain('src/registry.ts: import() of a computed path');
  });

  it('catches graphs/ importing workers/, and a configured graph module in workers/', async () => {
    const root = await tree({
      'graphs/agent.ts': "import type { Toolbox } from '../workers/agent/toolbox.js';\nexport type T = Toolbox;\n",
      'config.example.yaml': 'graphs:\n  lead_agent: builtin:lead_agent\n  mine: ./workers/agent/lead-agent.ts:leadAgentGraph\n',
    });
    const { code, output } = await lint(root);
    expect(code).toBe(1);
    expect(output).toContain('graphs/agent.ts: imports ../workers/agent/toolbox.js — graphs/ never imports workers/');
    expect(output).toContain('config.example.yaml: graph mine is ./workers/agent/lead-agent.ts:leadAgentGraph');
  });

  // One violation per arrow of the layout (issue #29): each rule must name the file and the reason.
  const ARROWS: [string, Record<string, string>, string][] = [
    ['a store importing auth', { 'src/store/threads.ts': "import { x } from '../auth/access.js';\nexport const y = x;\n" }, 'src/store/threads.ts: imports ../auth/access.js — src/store/ is storage only'],
    ['a store importing a feature', { 'src/store/stores.ts': "import { m } from '../memory/memory.js';\nexport const y = m;\n" }, 'src/store/stores.ts: imports ../memory/memory.js — src/store/ is storage only'],
    ['the stream transport importing the runtime', { 'src/streams/run-follow.ts': "import { r } from '../runtime/run-relay.js';\nexport const y = r;\n" }, "src/streams/run-follow.ts: imports ../runtime/run-relay.js — src/streams/ (a run's stream) imports only"],
    ['a route touching ioredis', { 'src/memory/memory.routes.ts': "import { Redis } from 'ioredis';\nexport const y = Redis;\n" }, 'src/memory/memory.routes.ts: imports ioredis — a route never touches ioredis or a key'],
    ['a route touching a key', { 'src/crons/crons.routes.ts': "import { keys } from '../store/keys.js';\nexport const y = keys;\n" }, 'src/crons/crons.routes.ts: imports ../store/keys.js — a route never touches ioredis or a key'],
    ['admission importing a service', { 'src/admission/admit-run.ts': "import { s } from '../crons/crons.service.js';\nexport const y = s;\n" }, 'src/admission/admit-run.ts: imports ../crons/crons.service.js — shared layers'],
    ['graphs importing a service', { 'graphs/lead-agent/x.ts': "import { s } from '../../src/memory/memory.service.js';\nexport const y = s;\n" }, 'graphs/lead-agent/x.ts: imports ../../src/memory/memory.service.js — graphs/ never imports HTTP code'],
    ['a worker importing a route', { 'workers/tools/x.ts': "import { r } from '../../src/skills/skills.routes.js';\nexport const y = r;\n" }, 'workers/tools/x.ts: imports ../../src/skills/skills.routes.js — workers/ never imports HTTP code'],
    ['a worker reaching inside a feature', { 'workers/memory/memory-worker.ts': "import { s } from '../../src/memory/memory-store.js';\nexport const y = s;\n" }, 'workers/memory/memory-worker.ts: imports ../../src/memory/memory-store.js — the memory feature is reached only through src/memory/memory.ts'],
    ['another feature reaching inside a feature', { 'src/crons/cron-store.ts': "import { a } from '../agents/custom-agent-store.js';\nexport const y = a;\n" }, 'src/crons/cron-store.ts: imports ../agents/custom-agent-store.js — the agents feature is reached only through src/agents/agents.ts'],
    ['a composition root reaching a feature\'s records', { 'src/api-server.ts': "import { c } from './channels/channel-store.js';\nexport const y = c;\n" }, 'src/api-server.ts: imports ./channels/channel-store.js — the channels feature is reached only through src/channels/channels.ts'],
    ['a worker module starting another feature\'s job', { 'workers/run-executor/executor.ts': "import { w } from '../webhooks/webhook-worker.js';\nexport const y = w;\n" }, 'workers/run-executor/executor.ts: imports ../webhooks/webhook-worker.js — workers/webhooks/ is a feature\'s job: only workers/worker-process.ts starts it'],
    ['an import cycle', { 'graphs/registry.ts': "import { a } from './lead-agent/lead-agent.js';\nexport const r = a;\n", 'graphs/lead-agent/lead-agent.ts': "import type { r } from '../registry.js';\nexport const a = 1 as unknown as typeof r;\n" }, 'import cycle among graphs/lead-agent/lead-agent.ts, graphs/registry.ts'],
  ];

  it.each(ARROWS)('catches %s', async (_what, files, expected) => {
    const { code, output } = await lint(await tree(files));
    expect(code).toBe(1);
    expect(output).toContain(expected);
  });

  it('lets a feature be reached through its door, and the API roots reach its routes and service', async () => {
    const root = await tree({
      'workers/memory/memory-worker.ts': "import { s } from '../../src/memory/memory.js';\nexport const y = s;\n",
      'src/memory/memory.ts': "export { s } from './memory-store.js';\n",
      'src/memory/memory-store.ts': 'export const s = 1;\n',
      'src/memory/memory.routes.ts': "import { s } from './memory-store.js';\nexport const r = s;\n",
      'src/gateway/gateway.plugin.ts': "import { r } from '../memory/memory.routes.js';\nexport const p = r;\n",
      'workers/worker-process.ts': "import { y } from './memory/memory-worker.js';\nexport const w = y;\n",
    });
    expect(await lint(root)).toEqual({ code: 0, output: 'import arrows: ok\n' });
  });
});
