// Graphs by id, as `langgraph.json` maps them: `builtin:lead_agent` or `<module>:<export>`.
// Both processes load graphs: workers to run them, the API only to read and update state
// through the checkpointer (getState, updateState, history), never to execute a node.
// Built-in graphs are imported statically from graphs/, so the import lint sees every arrow.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BaseCheckpointSaver, BaseStore } from '@langchain/langgraph-checkpoint';
import { batchStoreCallsWithoutPolling } from './store-batching.js';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { Pregel } from '@langchain/langgraph/pregel';
import type { Logger } from 'pino';
import type { AppConfig } from '../src/config/app-config.schemas.js';
import { PROJECT_ROOT } from '../src/config/paths.js';
import { ConfigError, NotFoundError } from '../src/errors.js';
import { registerSdkLogger } from './graph-logger.js';
import type { GraphServices } from './graph-services.js';
import { installTypeScriptLoader, isTypeScriptModule } from './ts-loader.js';
import { leadAgentGraph } from './lead-agent/lead-agent.js';

// The graph type we host: any compiled LangGraph.js graph.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Pregel's generics are graph-specific
export type HostedGraph = Pregel<any, any, any, any, any, any>;

export const DEFAULT_GRAPH_ID = 'lead_agent';

/** A graph export that is a function: called with the run's config and the process's context. */
type GraphFactory = (config: RunnableConfig | undefined, context: GraphContext) => unknown;

const BUILTINS: Record<string, GraphFactory> = {
  lead_agent: leadAgentGraph,
};

/** Graph modules may not live where only the worker's code is: the API imports them too. */
const WORKER_ONLY_DIRS = [path.join(PROJECT_ROOT, 'workers'), path.join(PROJECT_ROOT, 'dist', 'workers')];

export interface GraphContext {
  checkpointer: BaseCheckpointSaver;
  /** The long-term store nodes reach as `config.store` / `runtime.store`. */
  store?: BaseStore;
  /** Handed to graph factories as their second argument (the built-in agent reads models from it). */
  appConfig: AppConfig;
  /** Given by workers, which run graphs; the API only reads state and leaves them out. */
  services?: GraphServices;
  /** Backs the SDK's `getLogger()` that graphs log through. */
  log?: Logger;
}

export interface GraphRegistry {
  ids(): string[];
  has(graphId: string): boolean;
  /** The graph for a run or a state read, with Warren's checkpointer attached. */
  load(graphId: string, config?: RunnableConfig): Promise<HostedGraph>;
}

function isPregel(value: unknown): value is HostedGraph {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { stream?: unknown }).stream === 'function' &&
    typeof (value as { getState?: unknown }).getState === 'function'
  );
}

async function toGraph(exported: unknown, config: RunnableConfig | undefined, spec: string, context: GraphContext): Promise<HostedGraph> {
  // A module may export the graph itself, a Promise of it, or a factory that LangGraph calls
  // with the run's config on every run (and every state read), as the LangGraph server does.
  let value: unknown = await exported;
  if (typeof value === 'function' && !isPregel(value)) {
    value = await (value as GraphFactory)(config ?? { configurable: {} }, context);
  }
  if (isPregel(value)) return value;
  // createAgent returns an agent whose compiled graph is `.graph`.
  const inner = (value as { graph?: unknown } | null)?.graph;
  if (isPregel(inner)) return inner;
  // An uncompiled StateGraph.
  if (value && typeof (value as { compile?: unknown }).compile === 'function') {
    const compiled = (value as { compile: () => unknown }).compile();
    if (isPregel(compiled)) return compiled;
  }
  throw new ConfigError(`${spec} does not export a LangGraph graph (a compiled graph, a StateGraph, a Promise of one, or a function returning one)`);
}

type ResolvedModule = { spec: string; url: string; exportName: string; typescript: boolean };
type ResolvedGraph = { spec: string } & ({ builtin: GraphFactory } | ResolvedModule);

/**
 * `<path>:<export>` to an importable file URL and an export name; `<path>` alone means its
 * default export, as in `langgraph.json`. `what` names the module in errors ("Graph", "Auth").
 */
function resolveModuleSpec(spec: string, configDir: string, what: string): ResolvedModule {
  const colon = spec.lastIndexOf(':');
  const exportName = colon > 0 ? spec.slice(colon + 1) : 'default';
  const target = colon > 0 ? spec.slice(0, colon) : spec;
  if (exportName === '') throw new ConfigError(`${what} "${spec}" must be <module path>:<export> or <module path>`);
  if (!/\.(?:[cm]?js|[cm]?ts)$/.test(target)) throw new ConfigError(`${what} module "${target}" must be .js, .mjs, .cjs, .ts, .mts or .cts`);
  const full = path.isAbsolute(target) ? target : path.resolve(configDir, target);
  if (WORKER_ONLY_DIRS.some((dir) => full.startsWith(dir + path.sep))) {
    throw new ConfigError(`${what} module ${full} (for "${spec}") is worker code: the API loads it, so it lives outside workers/`);
  }
  if (!existsSync(full)) throw new ConfigError(`${what} module ${full} (for "${spec}") does not exist`);
  return { spec, url: pathToFileURL(full).href, exportName, typescript: isTypeScriptModule(full) };
}

/** Resolves `builtin:x` to its factory, and `<path>:<export>` as resolveModuleSpec does. */
export function resolveGraphSpec(spec: string, configDir: string): ResolvedGraph {
  if (spec.startsWith('builtin:')) {
    const builtin = BUILTINS[spec.slice('builtin:'.length)];
    if (!builtin) throw new ConfigError(`Unknown built-in graph "${spec}"`);
    return { spec, builtin };
  }
  return resolveModuleSpec(spec, configDir, 'Graph');
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

export function createGraphRegistry(
  graphs: Readonly<Record<string, string>>,
  configDir: string,
  context: GraphContext,
): GraphRegistry {
  if (context.store) batchStoreCallsWithoutPolling();
  const specs: Record<string, string> = { [DEFAULT_GRAPH_ID]: 'builtin:lead_agent', ...graphs };
  // Resolve every spec at boot, so a bad path fails the start, not the first run.
  const resolved = new Map(Object.entries(specs).map(([id, spec]) => [id, resolveGraphSpec(spec, configDir)]));
  if ([...resolved.values()].some((entry) => 'typescript' in entry && entry.typescript)) installTypeScriptLoader();
  if (context.log) registerSdkLogger(context.log);
  const modules = new Map<string, Promise<Record<string, unknown>>>();

  const exportOf = async (url: string, exportName: string, spec: string): Promise<unknown> => {
    let mod = modules.get(url);
    if (!mod) {
      mod = import(url) as Promise<Record<string, unknown>>;
      modules.set(url, mod);
      // Not a drop: the caller awaiting `mod` gets the error; the cache only forgets it, so the
      // next load tries again.
      mod.catch(() => modules.delete(url));
    }
    const exported = (await mod)[exportName];
    if (exported === undefined) throw new ConfigError(`${spec}: the module has no export "${exportName}"`);
    return exported;
  };

  return {
    ids: () => [...resolved.keys()],
    has: (graphId) => resolved.has(graphId),
    async load(graphId, config) {
      const entry = resolved.get(graphId);
      if (!entry) throw new NotFoundError(`Assistant or graph "${graphId}" not found`);
      const exported = 'builtin' in entry ? entry.builtin : await exportOf(entry.url, entry.exportName, entry.spec);
      const graph = await toGraph(exported, config, entry.spec, context);
      graph.checkpointer = context.checkpointer;
      if (context.store) graph.store = context.store;
      return graph;
    },
  };
}
