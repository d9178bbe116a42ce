// Graphs by id, as `langgraph.json` maps them: `builtin:lead_agent` or `<module>:<export>`.
// Both processes load graphs: workers to run them, the API only to read and update state
// through the checkpointer (getState, updateState, history), never to execute a node.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from 'pino';
import type { Pregel } from '@langchain/langgraph/pregel';
import type { AppConfig } from '../config/app-config.schemas.js';
import { PROJECT_ROOT } from '../config/paths.js';
import { ConfigError, NotFoundError } from '../errors.js';
import type { TaskDispatcher } from '../queue/task-queue.js';

// The graph type we host: any compiled LangGraph.js graph.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Pregel's generics are graph-specific
export type HostedGraph = Pregel<any, any, any, any, any, any>;

export const DEFAULT_GRAPH_ID = 'lead_agent';

/** Built-in graphs, as module specs relative to the project root (without extension). */
const BUILTINS: Record<string, string> = {
  lead_agent: 'workers/agent/lead-agent:leadAgentGraph',
};

/**
 * What a running graph may use from its process. Workers provide these; the API only reads
 * state, so it can leave them out.
 */
export interface GraphServices {
  /** WARREN_HOME: threads' user-data folders. */
  home: string;
  /** Folder holding `public/` and `custom/` skills. */
  skillsDir: string;
  extensionsConfigPath: string;
  /** Runs sub-agent tasks as queued jobs on any worker. */
  tasks?: TaskDispatcher;
  /** Tools of the enabled MCP servers, cached per process. */
  mcpTools?: () => Promise<StructuredToolInterface[]>;
  log: Logger;
  /** The bubblewrap executable; left out it is looked for, null acts as if it were absent (tests). */
  bwrapPath?: string | null;
}

export interface GraphContext {
  checkpointer: BaseCheckpointSaver;
  /** Handed to graph factories as their second argument (the built-in agent reads models from it). */
  appConfig: AppConfig;
  services?: GraphServices;
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
  let value = exported;
  if (typeof value === 'function' && !isPregel(value)) {
    value = await (value as (c: RunnableConfig | undefined, ctx: GraphContext) => unknown)(config, context);
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
  throw new ConfigError(`${spec} does not export a LangGraph graph (a compiled graph, a StateGraph, or a function returning one)`);
}

/** Resolves `builtin:x` and `<path>:<export>` to an importable file URL and an export name. */
export function resolveGraphSpec(spec: string, configDir: string): { url: string; exportName: string } {
  let target = spec;
  let base = configDir;
  if (spec.startsWith('builtin:')) {
    const builtin = BUILTINS[spec.slice('builtin:'.length)];
    if (!builtin) throw new ConfigError(`Unknown built-in graph "${spec}"`);
    // Built from dist/ the module is .js beside us; under the test runner it is the .ts source.
    const fromDist = import.meta.url.includes('/dist/');
    const [file, exportName] = builtin.split(':') as [string, string];
    const full = fromDist ? path.join(PROJECT_ROOT, 'dist', `${file}.js`) : path.join(PROJECT_ROOT, `${file}.ts`);
    return { url: pathToFileURL(full).href, exportName };
  }
  const colon = target.lastIndexOf(':');
  if (colon <= 0) throw new ConfigError(`Graph "${spec}" must be <module path>:<export>`);
  const exportName = target.slice(colon + 1);
  target = target.slice(0, colon);
  if (!/\.(m?js|ts|mts)$/.test(target)) throw new ConfigError(`Graph module "${target}" must be .js, .mjs or .ts`);
  const full = path.isAbsolute(target) ? target : path.resolve(base, target);
  if (!existsSync(full)) throw new ConfigError(`Graph module ${full} (for "${spec}") does not exist`);
  return { url: pathToFileURL(full).href, exportName };
}

export function createGraphRegistry(
  graphs: Readonly<Record<string, string>>,
  configDir: string,
  context: GraphContext,
): GraphRegistry {
  const specs: Record<string, string> = { [DEFAULT_GRAPH_ID]: 'builtin:lead_agent', ...graphs };
  // Resolve every spec at boot, so a bad path fails the start, not the first run.
  const resolved = new Map(Object.entries(specs).map(([id, spec]) => [id, { spec, ...resolveGraphSpec(spec, configDir) }]));
  const modules = new Map<string, Promise<Record<string, unknown>>>();

  return {
    ids: () => [...resolved.keys()],
    has: (graphId) => resolved.has(graphId),
    async load(graphId, config) {
      const entry = resolved.get(graphId);
      if (!entry) throw new NotFoundError(`Assistant or graph "${graphId}" not found`);
      let mod = modules.get(entry.url);
      if (!mod) {
        mod = import(entry.url) as Promise<Record<string, unknown>>;
        modules.set(entry.url, mod);
        // Not a drop: the caller awaiting `mod` gets the error; the cache only forgets it, so the
        // next load tries again.
        mod.catch(() => modules.delete(entry.url));
      }
      const exported = (await mod)[entry.exportName];
      if (exported === undefined) throw new ConfigError(`${entry.spec}: the module has no export "${entry.exportName}"`);
      const graph = await toGraph(exported, config, entry.spec, context);
      graph.checkpointer = context.checkpointer;
      return graph;
    },
  };
}
