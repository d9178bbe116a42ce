// langgraph.json's `ui` and `ui_config` as Warren reads them (#32): component files are checked
// when the file is read, a component that fails to bundle stops the API's start naming its file,
// the bundler's esbuild process does not outlive the start, and `POST /ui` needs credentials
// while the files a <script src> loads do not.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/api-server.js';
import { readLangGraphJson } from '../../src/config/langgraph-json.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { bundleUi } from '../../src/ui/ui-bundles.js';
import { componentNames } from '../../src/ui/ui-components.js';
import { trackedDir } from '../support/leftovers.js';
import { startStack, testEnv, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/langgraph-ui/langgraph.json', import.meta.url));

let dir: string;
let project: string;
beforeEach(() => {
  dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-ui-config-')));
  project = path.join(dir, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'src', 'agent.ts'), 'export const graph = 1;\n');
  writeFileSync(path.join(project, 'src', 'ui.tsx'), 'export default { card: () => <b>card</b> };\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes project/langgraph.json with `graphs` and the given keys; returns its path. */
function projectFile(keys: Record<string, unknown>): string {
  const file = path.join(project, 'langgraph.json');
  writeFileSync(file, JSON.stringify({ graphs: { agent: './src/agent.ts:graph' }, ...keys }));
  return file;
}

/** esbuild's service process, stopped (a SIGTERM), has exited and been reaped. */
const esbuildGone = () => waitFor(async () => esbuildChildren().length === 0, 'esbuild’s service process to exit');

/** Processes this one started whose command line names esbuild (its service process). */
function esbuildChildren(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of stat is the parent's id; the command name in field 2 may hold spaces.
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('esbuild')) found.push(Number(name));
    } catch {
      // The process ended while we looked: it is not a leftover.
    }
  }
  return found;
}

describe('ui in langgraph.json', () => {
  it('reads each component against the project directory, with ui_config.shared', () => {
    const file = projectFile({ ui: { agent: './src/ui.tsx' }, ui_config: { shared: ['@acme/design'] } });
    expect(readLangGraphJson(file).ui).toEqual({ file, cwd: project, components: { agent: './src/ui.tsx' }, shared: ['@acme/design'] });
    expect(readLangGraphJson(projectFile({})).ui).toBeUndefined();
  });

  it('refuses a component file that is missing or outside the project, and a malformed ui or ui_config, naming it', () => {
    const attempt = (keys: Record<string, unknown>) => () => readLangGraphJson(projectFile(keys));
    expect(attempt({ ui: { agent: './src/gone.tsx' } })).toThrow(ConfigError);
    expect(attempt({ ui: { agent: './src/gone.tsx' } })).toThrow(`ui "agent": component file ${path.join(project, 'src', 'gone.tsx')} does not exist.`);
    writeFileSync(path.join(dir, 'outside.tsx'), 'export default {};\n');
    expect(attempt({ ui: { agent: '../outside.tsx' } })).toThrow(/ui "agent" \(\.\.\/outside\.tsx\) is outside the project directory/);
    expect(attempt({ ui: { 'a/b': './src/ui.tsx' } })).toThrow('ui "a/b": the id must be 1 to 128 letters, digits, "_", "." or "-".');
    expect(attempt({ ui: { agent: 7 } })).toThrow(/is invalid: \/ui\/agent/);
    expect(attempt({ ui: { agent: './src/ui.tsx' }, ui_config: { shard: [] } })).toThrow(/is invalid: \/ui_config/);
  });

  it('a component that fails to bundle stops the start naming its file, before any connection is made', async () => {
    writeFileSync(path.join(project, 'src', 'broken.tsx'), 'export default { card: () => <b>unclosed };\n');
    writeFileSync(path.join(project, 'src', 'missing-import.tsx'), "import { x } from './nowhere';\nexport default { card: () => <b>{x}</b> };\n");
    const file = projectFile({ ui: { good: './src/ui.tsx', broken: './src/broken.tsx', lost: './src/missing-import.tsx' } });
    const configFile = path.join(dir, 'config.yaml');
    writeFileSync(configFile, `langgraph_json: ${file}\n`);
    // A Redis nobody listens on: the start must fail on the bundle, not on a connection.
    const start = createApiServer({ env: testEnv(dir, { redisUrl: 'redis://127.0.0.1:1' }), loaded: loadAppConfig({ WARREN_CONFIG: configFile }) });
    const err = (await start.catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(`${file}: ui "broken" (${path.join(project, 'src', 'broken.tsx')}) could not be bundled:`);
    expect(err.message).toContain(`${file}: ui "lost" (${path.join(project, 'src', 'missing-import.tsx')}) could not be bundled:`);
    expect(err.message).toContain('Could not resolve "./nowhere"');
    expect(err.message).not.toContain('ui "good"');
    await esbuildGone();
  });

  it('bundles nothing, and starts no esbuild, without ui; leaves no esbuild process after bundling', async () => {
    expect((await bundleUi(undefined)).size).toBe(0);
    expect(esbuildChildren()).toEqual([]);
    const bundles = await bundleUi(readLangGraphJson(projectFile({ ui: { agent: './src/ui.tsx' } })).ui);
    expect(bundles.get('agent')?.files.map((f) => f.basename)).toEqual(['entrypoint.js']);
    expect(bundles.get('agent')?.components).toEqual(new Set(['card']));
    await esbuildGone();
  });
});

describe('component names, from the ui file alone', () => {
  const namesOf = (source: string) => {
    const file = path.join(project, 'src', 'names.tsx');
    writeFileSync(file, source);
    return componentNames(file);
  };

  it('are the keys of a default-exported object, local spreads included', () => {
    expect(namesOf('const more = { b: () => <i/> };\nexport default { a: () => <b/>, ...more };\n')).toEqual(new Set(['a', 'b']));
    expect(namesOf('import { Card } from "./card";\nconst ui = { card: Card };\nexport default ui;\n')).toEqual(new Set(['card']));
  });

  it('are open (null) when only imports, an index signature or nothing could tell', () => {
    expect(namesOf('import ui from "./elsewhere";\nexport default ui;\n')).toBeNull();
    expect(namesOf('export { default } from "./elsewhere";\n')).toBeNull();
    expect(namesOf('import * as more from "./elsewhere";\nexport default { a: () => null, ...more };\n')).toBeNull();
    expect(namesOf('const all: { [name: string]: () => null } = {};\nexport default all;\n')).toBeNull();
    expect(namesOf('export const a = 1;\n')).toBeNull();
  });
});

describe('ui routes under authentication', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('POST /ui/{graph} needs credentials; the files a <script src> loads do not', async () => {
    const key = 'ui-user-key-0123456789abcdef';
    stack = await startStack({ workers: 0, config: { langgraph_json: FIXTURE, auth: { api_keys: [{ key, user: 'alice' }] } } });
    const post = (headers: Record<string, string>) =>
      fetch(`${stack?.apiUrl}/ui/agent`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'weather' }) });
    const refused = await post({});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toHaveProperty('detail');
    const answered = await post({ 'x-api-key': key });
    expect(answered.status).toBe(200);
    const src = /<script src="([^"]+)"/.exec(await answered.text())?.[1] as string;
    const script = await fetch(src);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });
});
