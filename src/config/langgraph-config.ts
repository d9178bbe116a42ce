// LANGGRAPH_CONFIG: per-graph defaults for the system assistants, as JSON in the environment
// (commonly set through langgraph.json's `env`), read as LangGraph's server reads it:
// `{"<graph id>": {"configurable": {...}, "context": {...}, ...}}`; each entry's `context` becomes
// the assistant's context and the rest its config.
import { ConfigError } from '../errors.js';

export interface SystemAssistantDefaults {
  config: Record<string, unknown>;
  context: Record<string, unknown>;
}

const isDict = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The defaults by graph id; empty without LANGGRAPH_CONFIG. A fault stops the start, naming the graph. */
export function readLangGraphConfig(env: NodeJS.ProcessEnv, graphIds: readonly string[]): ReadonlyMap<string, SystemAssistantDefaults> {
  const raw = env.LANGGRAPH_CONFIG;
  const out = new Map<string, SystemAssistantDefaults>();
  if (raw === undefined || raw.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`LANGGRAPH_CONFIG is not valid JSON: ${(err as Error).message}`);
  }
  if (!isDict(parsed)) throw new ConfigError('LANGGRAPH_CONFIG must be a JSON object of graph id → config.');
  for (const [graphId, entry] of Object.entries(parsed)) {
    // An id naming no graph is a typo or another project's: said at start, not silently unused.
    if (!graphIds.includes(graphId)) throw new ConfigError(`LANGGRAPH_CONFIG names graph "${graphId}", which is not configured (graphs: ${graphIds.join(', ')}).`);
    if (!isDict(entry)) throw new ConfigError(`LANGGRAPH_CONFIG["${graphId}"] must be an object (a config, with an optional "context").`);
    const { context, ...config } = entry;
    if (context !== undefined && !isDict(context)) throw new ConfigError(`LANGGRAPH_CONFIG["${graphId}"].context must be an object.`);
    if (config.configurable !== undefined && !isDict(config.configurable)) throw new ConfigError(`LANGGRAPH_CONFIG["${graphId}"].configurable must be an object.`);
    out.set(graphId, { config, context: context ?? {} });
  }
  return out;
}
