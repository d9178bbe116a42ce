// Graphs by id, as `langgraph.json` maps them: `builtin:lead_agent` or `<module>:<export>`.
// Both processes load graphs: workers to run them, the API only to read and update state
// through the checkpointer (getState, updateState, history), never to execute a node.
// Built-in graphs are imported statically from graphs/, so the import lint sees every arrow.
import { fileURLToPath } from 'node:url';
import { batchStoreCallsWithoutPolling } from './store-batching.js';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { Pregel } from '@langchain/langgraph/pregel';
import { ConfigError } from '../src/errors.js';
import { GraphNotFoundError } from './graphs.errors.js';
import { registerSdkLogger } from './graph-logger.js';
import type { GraphContext } from './graph-services.js';
import { installTypeScriptLoader } from '../src/config/ts-loader.js';
import { resolveModuleSpec, type ResolvedModule } from '../src/config/module-loader.js';
import { leadAgentGraph } from './lead-agent/lead-agent.js';
import { createSchemaExtractorsCache, WARREN_EXTRACTORS, type SchemaExtractors } from './schema-extractors.js';

// The graph type we host: any compiled LangGraph.js graph.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Pregel's generics are graph-specific
export type HostedGraph = Pregel<any, any, any, any, any, any>;

export const DEFAULT_GRAPH_ID = 'lead_agent';

/** A graph export that is a function: called with the run's config and the process's context. */
type GraphFactory = (config: RunnableConfig | undefined, context: GraphContext) => unknown;

const BUILTINS: Record<string, GraphFactory> = {
  lead_agent: leadAgentGraph,
};


export interface GraphRegistry {
  ids(): string[];
  has(graphId: string): boolean;
  /** The graph for a run or a state read, with Warren's checkpointer attached. */
  load(graphId: string, config?: RunnableConfig): Promise<HostedGraph>;
  /** The TypeScript file and export a configured graph comes from (its types describe it); null for JavaScript and built-in graphs. */
  typeSource(graphId: string): { file: string; exportName: string } | null;
  /** LangGraph's schema extractors from the copy of LangGraph the graph's module imports. */
  schemaExtractors(graphId: string): Promise<SchemaExtractors>;
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

type ResolvedGraph = { spec: string } & ({ builtin: GraphFactory } | ResolvedModule);

/** Resolves `builtin:x` to its factory, and `<path>:<export>` as resolveModuleSpec does. */
export function resolveGraphSpec(spec: string, configDir: string): ResolvedGraph {
  if (spec.startsWith('builtin:')) {
    const builtin = BUILTINS[spec.slice('builtin:'.length)];
    if (!builtin) throw new ConfigError(`Unknown built-in graph "${spec}"`);
    return { spec, builtin };
  }
  return resolveModuleSpec(spec, configDir, 'Graph');
}

export function createGraphRegistry(
  graphs: Readonly<Record<string, string>>,
  configDir: string,
  context: GraphContext,
): GraphRegistry {
  if (context.store) batchStoreCallsWithoutPolling(context.log);
  const specs: Record<string, string> = { [DEFAULT_GRAPH_ID]: 'builtin:lead_agent', ...graphs };
  // Resolve every spec at boot, so a bad path fails the start, not the first run.
  const resolved = new Map(Object.entries(specs).map(([id, spec]) => [id, resolveGraphSpec(spec, configDir)]));
  if ([...resolved.values()].some((entry) => 'typescript' in entry && entry.typescript)) installTypeScriptLoader();
  if (context.log) registerSdkLogger(context.log);
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const extractorsFor = createSchemaExtractorsCache((url) => import(url));

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
    typeSource(graphId) {
      const entry = resolved.get(graphId);
      return entry && 'url' in entry && entry.typescript ? { file: fileURLToPath(entry.url), exportName: entry.exportName } : null;
    },
    async schemaExtractors(graphId) {
      const entry = resolved.get(graphId);
      if (!entry) throw new GraphNotFoundError(`Assistant or graph "${graphId}" not found`);
      return 'builtin' in entry ? WARREN_EXTRACTORS : extractorsFor(entry.url);
    },
    async load(graphId, config) {
      const entry = resolved.get(graphId);
      if (!entry) throw new GraphNotFoundError(`Assistant or graph "${graphId}" not found`);
      const exported = 'builtin' in entry ? entry.builtin : await exportOf(entry.url, entry.exportName, entry.spec);
      const graph = await toGraph(exported, config, entry.spec, context);
      graph.checkpointer = context.checkpointer;
      if (context.store) graph.store = context.store;
      return graph;
    },
  };
}
