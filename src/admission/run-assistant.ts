// What a run takes from its assistant: a configured graph's system assistant (id = graph id), or
// one a client stored. Resolved here so that HTTP runs and cron ticks resolve it the same way.
import type { Static } from 'typebox';
import { mayReach, type Identity } from '../auth/identity.js';
import { GraphNotFoundError } from '../../graphs/graphs.errors.js';
import { DEFAULT_GRAPH_ID, type GraphRegistry } from '../../graphs/registry.js';
import type { RunConfigSchema } from '../queue/run-kwargs.js';
import type { AssistantStore } from '../store/assistants.js';
import { AssistantNotFoundError } from '../store/store.errors.js';
import type { SystemAssistantDefaults } from '../config/langgraph-config.js';

export type RunConfig = Static<typeof RunConfigSchema>;

export interface RunAssistant {
  assistantId: string;
  graphId: string;
  config: RunConfig;
  context: Record<string, unknown>;
}

export interface RunAssistantDeps {
  assistants: Pick<AssistantStore, 'get'>;
  graphs: Pick<GraphRegistry, 'has' | 'ids'>;
  /** The system assistants' config and context (LANGGRAPH_CONFIG); none: empty. */
  systemDefaults?: ReadonlyMap<string, SystemAssistantDefaults>;
}

/** A system assistant's config and context: LANGGRAPH_CONFIG's entry for its graph, or empty. */
export function systemAssistantDefaults(deps: Pick<RunAssistantDeps, 'systemDefaults'>, graphId: string): { config: RunConfig; context: Record<string, unknown> } {
  const found = deps.systemDefaults?.get(graphId);
  return { config: (found?.config ?? {}) as RunConfig, context: found?.context ?? {} };
}

/**
 * The config a thread's assistant builds its graph with (state reads and updates of a factory
 * graph), whoever owns the assistant: the thread's access was checked already. A deleted
 * assistant leaves the graph's defaults.
 */
export async function assistantGraphConfig(deps: RunAssistantDeps, assistantId: string): Promise<RunConfig> {
  if (deps.graphs.has(assistantId)) return systemAssistantDefaults(deps, assistantId).config;
  return ((await deps.assistants.get(assistantId))?.assistant.config ?? {}) as RunConfig;
}

/** The run's assistant, or a 404 naming what could be used instead. */
export async function resolveRunAssistant(deps: RunAssistantDeps, assistantId: string | undefined, caller: Identity): Promise<RunAssistant> {
  const id = assistantId ?? DEFAULT_GRAPH_ID;
  if (deps.graphs.has(id)) return { assistantId: id, graphId: id, ...systemAssistantDefaults(deps, id) };
  const stored = await deps.assistants.get(id);
  // Another user's assistant is as unknown as one that does not exist.
  if (!stored || !mayReach(caller, stored.owner)) {
    throw new AssistantNotFoundError(`No assistant found for "${id}". Use an assistant id or a configured graph id (${deps.graphs.ids().join(', ')}).`);
  }
  const { assistant } = stored;
  if (!deps.graphs.has(assistant.graph_id)) {
    throw new GraphNotFoundError(`Graph "${assistant.graph_id}" not found. Configured graphs: ${deps.graphs.ids().join(', ')}.`);
  }
  return { assistantId: id, graphId: assistant.graph_id, config: assistant.config as RunConfig, context: assistant.context };
}

/**
 * A run's config and context over its assistant's, as LangGraph merges them: the run's values
 * win, and `configurable` is merged key by key.
 */
export function mergeAssistant(assistant: RunAssistant, config: RunConfig | null | undefined, context: Record<string, unknown> | null | undefined) {
  const own = config ?? {};
  const merged: RunConfig = { ...assistant.config, ...own };
  const configurable = { ...(assistant.config.configurable ?? {}), ...(own.configurable ?? {}) };
  if (Object.keys(configurable).length > 0) merged.configurable = configurable;
  const hasContext = Object.keys(assistant.context).length > 0;
  return { config: merged, context: hasContext ? { ...assistant.context, ...(context ?? {}) } : (context ?? null) };
}
