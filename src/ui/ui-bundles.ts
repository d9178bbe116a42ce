// Generative UI (`ui` in a project's langgraph.json), bundled at start by @langchain/langgraph-ui,
// the bundler LangGraph's own server uses: React, react-dom, the SDK and `ui_config.shared` stay
// out of the bundle (the page provides them). Each API process bundles for itself and keeps the
// files in memory: the output is a function of the project's files, which every replica has to
// run the graphs anyway, so replicas serve the same bytes with nothing to coordinate in Redis, and
// a replica of a rolling deploy serves the bundle of its own graphs. Workers never bundle.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ProjectUi } from '../config/langgraph-json.js';
import { ConfigError } from '../errors.js';
import { componentNames } from './ui-components.js';

export interface UiFile {
  basename: string;
  contents: Buffer;
}

export interface UiBundle {
  /** `entrypoint.js`, and `entrypoint.css` when the components import styles. */
  files: readonly UiFile[];
  /** The names its default export maps to components; null when the source alone cannot tell. */
  components: ReadonlySet<string> | null;
}

/** graph id → its bundle. */
export type UiBundles = ReadonlyMap<string, UiBundle>;

/** Bundles under way in this process (two API replicas of a test share one): esbuild stops after the last. */
let bundling = 0;

/** One graph's components, bundled into `output`; a failure is a config fault naming the file. */
async function bundleOne(ui: ProjectUi, id: string, output: string): Promise<UiBundle> {
  const component = ui.components[id] as string;
  // Loaded here only: a start without `ui` never loads esbuild or Tailwind.
  const { build } = await import('@langchain/langgraph-ui');
  let files: UiFile[];
  try {
    await build({ output, cwd: ui.cwd, defs: { [id]: component }, config: { shared: ui.shared } });
    const folder = path.join(output, 'public', id);
    const names = (await readdir(folder)).sort();
    files = await Promise.all(names.map(async (basename) => ({ basename, contents: await readFile(path.join(folder, basename)) })));
  } catch (err) {
    throw new ConfigError(`${ui.file}: ui "${id}" (${path.resolve(ui.cwd, component)}) could not be bundled: ${(err as Error).message}`, { cause: err });
  }
  return { files, components: componentNames(path.resolve(ui.cwd, component)) };
}

/** Every component file of `ui` bundled, or nothing to do (no `ui`). Throws a ConfigError naming each file that fails. */
export async function bundleUi(ui: ProjectUi | undefined): Promise<UiBundles> {
  const ids = Object.keys(ui?.components ?? {});
  if (!ui || ids.length === 0) return new Map();
  // The bundler writes its output to disk; it is read back and the folder removed.
  const out = await mkdtemp(path.join(tmpdir(), 'warren-ui-'));
  bundling++;
  try {
    const results = await Promise.allSettled(ids.map((id, i) => bundleOne(ui, id, path.join(out, String(i)))));
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    if (failed.length > 0) throw new ConfigError(failed.join('\n'));
    return new Map(ids.map((id, i) => [id, (results[i] as PromiseFulfilledResult<UiBundle>).value]));
  } finally {
    await rm(out, { recursive: true, force: true });
    // esbuild keeps a service process for more builds; none come once the starts' bundles are done.
    if (--bundling === 0) (await import('esbuild')).stop();
  }
}
