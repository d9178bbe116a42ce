// What a run takes from its assistant: a configured graph's system assistant (id = graph id), or
// one a client stored. Resolved here so that HTTP runs and cron ticks resolve it the same way.
import type { Static } from 'typebox';
import { mayReach, type Identity } from '../auth/identity.js';
import { GraphNotFoundError } from '../../graphs/graphs.errors.js';
import { DEFAULT_GRAPH_ID, type GraphRegistry } from '../../graphs/registry.js';
import type { RunConfigSchema } from '../queue/run-kwargs.js';
import type { AssistantStore } from '../store/assistants.js';
import { AssistantNotFoundError } from '../store/store.errors.js';

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
}

/** The run's assistant, or a 404 naming what could be used instead. */
export async function resolveRunAssistant(deps: RunAssistantDeps, assistantId: string | undefined, caller: Identity): Promise<RunAssistant> {
  const id = assistantId ?? DEFAULT_GRAPH_ID;
  if (deps.graphs.has(id)) return { assistantId: id, graphId: id, config: {}, context: {} };
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
