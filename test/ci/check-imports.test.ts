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
});
