// LangGraph's run configs and debug payloads, as the LangGraph API puts them on the wire.
// A config inside LangGraph holds the run's machinery: `__pregel_*` keys (the checkpointer,
// send/read functions, the scratchpad), `callbacks`, the abort `signal`, the store. None of it
// belongs in an event, a state or a history entry: `publicConfig` is the one place that keeps
// only what a client may see, and every config Warren serialises goes through it.
import type { RunnableConfig } from '@langchain/core/runnables';

type Dict = Record<string, unknown>;

const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields of a config a client may see, in either spelling LangGraph uses (its debug
 * payloads already write the Python names). Everything else is machinery and is dropped.
 */
const PUBLIC_FIELDS: Readonly<Record<string, string>> = {
  tags: 'tags',
  metadata: 'metadata',
  recursion_limit: 'recursion_limit',
  recursionLimit: 'recursion_limit',
  max_concurrency: 'max_concurrency',
  maxConcurrency: 'max_concurrency',
  run_id: 'run_id',
  runId: 'run_id',
  run_name: 'run_name',
  runName: 'run_name',
};

/** `__`-prefixed keys are LangGraph's own (`__pregel_checkpointer`, `__pregel_send`...). */
const isInternalKey = (key: string) => key.startsWith('__');

const withoutInternalKeys = (value: Dict): Dict => Object.fromEntries(Object.entries(value).filter(([key]) => !isInternalKey(key)));

/** A config as a client may see it: `configurable` without internal keys, and no machinery. */
export function publicConfig(config: RunnableConfig | Dict | null | undefined): Dict {
  if (!isDict(config)) return {};
  const out: Dict = {};
  for (const [key, value] of Object.entries(config)) {
    const name = PUBLIC_FIELDS[key];
    if (name !== undefined && value !== undefined) out[name] = name === 'metadata' && isDict(value) ? withoutInternalKeys(value) : value;
  }
  out.configurable = isDict(config.configurable) ? withoutInternalKeys(config.configurable) : {};
  return out;
}

/** The LangGraph API's `Checkpoint` reference: `{thread_id, checkpoint_ns, checkpoint_id, checkpoint_map}`. */
export type CheckpointRef = {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Dict | null;
};

/**
 * The checkpoint a config points at, or null when it names no thread. `requireId`: a
 * checkpoint's own config always has an id; a subgraph task's config may not have one yet.
 */
export function checkpointRef(config: unknown, requireId = true): CheckpointRef | null {
  const configurable = isDict(config) && isDict(config.configurable) ? config.configurable : null;
  if (!configurable || typeof configurable.thread_id !== 'string' || configurable.thread_id === '') return null;
  const id = configurable.checkpoint_id;
  if (requireId && (typeof id !== 'string' || id === '')) return null;
  return {
    thread_id: configurable.thread_id,
    checkpoint_ns: typeof configurable.checkpoint_ns === 'string' ? configurable.checkpoint_ns : '',
    checkpoint_id: typeof id === 'string' && id !== '' ? id : null,
    checkpoint_map: isDict(configurable.checkpoint_map) ? configurable.checkpoint_map : null,
  };
}

/**
 * A task as `tasks` events and debug payloads carry it. A task that runs a subgraph holds that
 * subgraph's config in `state`; on the wire it becomes a `checkpoint` reference instead.
 */
export function wireTask(task: unknown): unknown {
  if (!isDict(task)) return task;
  const ref = checkpointRef(task.state, false);
  if (!ref) return task;
  const { state: _state, ...rest } = task;
  return { ...rest, checkpoint: ref };
}

/**
 * A checkpoint as `debug` (type `checkpoint`) and `checkpoints` events carry it:
 * `{config, parent_config, values, metadata, next, tasks, checkpoint, parent_checkpoint}`.
 */
export function wireCheckpoint(payload: unknown): unknown {
  if (!isDict(payload)) return payload;
  const { parentConfig, parent_config: parentConfigPy, ...rest } = payload;
  const parent = parentConfig ?? parentConfigPy;
  return {
    ...rest,
    config: publicConfig(payload.config as Dict | undefined),
    // LangGraph.js leaves `parent_config` out for the first checkpoint, as the JS server does.
    ...(isDict(parent) ? { parent_config: publicConfig(parent) } : {}),
    tasks: Array.isArray(payload.tasks) ? payload.tasks.map(wireTask) : [],
    checkpoint: checkpointRef(payload.config),
    parent_checkpoint: checkpointRef(parent),
  };
}

/** A `debug` chunk `{type, timestamp, step, payload}` with its payload in wire shape. */
export function wireDebug(chunk: unknown): unknown {
  if (!isDict(chunk)) return chunk;
  if (chunk.type === 'checkpoint') return { ...chunk, payload: wireCheckpoint(chunk.payload) };
  if (chunk.type === 'task' || chunk.type === 'task_result') return { ...chunk, payload: wireTask(chunk.payload) };
  return chunk;
}

/** An `events` event: the callback metadata LangGraph attaches may carry `__pregel_*` keys. */
export function wireCallbackEvent(event: unknown): unknown {
  if (!isDict(event) || !isDict(event.metadata)) return event;
  if (!Object.keys(event.metadata).some(isInternalKey)) return event;
  return { ...event, metadata: withoutInternalKeys(event.metadata) };
}

/**
 * LangGraph.js pushes a small `{id, step, source}` envelope on the `checkpoints` channel beside
 * each `values` chunk for its own protocol; only full checkpoints are `checkpoints` events.
 */
export const isCheckpointEnvelope = (payload: unknown): boolean => isDict(payload) && !('values' in payload) && !('config' in payload);
