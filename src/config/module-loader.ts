// Modules that config names as `<path>:<export>` (graphs, the custom auth module), resolved and
// imported the one way both kinds are: relative to the config's folder, TypeScript through the
// same loader, and never from workers/ (the API imports them too).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from './paths.js';
import { installTypeScriptLoader, isTypeScriptModule } from './ts-loader.js';

/** Graph modules may not live where only the worker's code is: the API imports them too. */
const WORKER_ONLY_DIRS = [path.join(PROJECT_ROOT, 'workers'), path.join(PROJECT_ROOT, 'dist', 'workers')];

export type ResolvedModule = { spec: string; url: string; exportName: string; typescript: boolean };

/**
 * `<path>:<export>` to an importable file URL and an export name; `<path>` alone means its
 * default export, as in `langgraph.json`. `what` names the module in errors ("Graph", "Auth").
 */
export function resolveModuleSpec(spec: string, configDir: string, what: string): ResolvedModule {
  const colon = spec.lastIndexOf(':');
  const exportName = colon > 0 ? spec.slice(colon + 1) : 'default';
  const target = colon > 0 ? spec.slice(0, colon) : spec;
  if (exportName === '') throw new ConfigError(`${what} "${spec}" must be <module path>:<export> or <module path>`);
  if (!/\.(?:[cm]?js|[cm]?ts)$/.test(target)) throw new ConfigError(`${what} module "${target}" must be .js, .mjs, .cjs, .ts, .mts or .cts`);
  const full = path.isAbsolute(target) ? target : path.resolve(configDir, target);
  if (WORKER_ONLY_DIRS.some((dir) => full.startsWith(dir + path.sep))) {
    throw new ConfigError(`${what} module ${full} (for "${spec}") is worker code: the API loads it too, so it may not live in the worker's folder`);
  }
  if (!existsSync(full)) throw new ConfigError(`${what} module ${full} (for "${spec}") does not exist`);
  return { spec, url: pathToFileURL(full).href, exportName, typescript: isTypeScriptModule(full) };
}

/**
 * One export of a module named as graphs are (`./path/to/file.ts:export`, relative to
 * `configDir`), loaded as graphs are: TypeScript through the same loader. The custom auth
 * module (src/auth/custom-module.ts) comes in this way.
 */
export async function importModuleExport(spec: string, configDir: string, what: string): Promise<unknown> {
  const entry = resolveModuleSpec(spec, configDir, what);
  if (entry.typescript) installTypeScriptLoader();
  const mod = (await import(entry.url)) as Record<string, unknown>;
  const exported = mod[entry.exportName];
  if (exported === undefined) throw new ConfigError(`${spec}: the module has no export "${entry.exportName}"`);
  return exported;
}
