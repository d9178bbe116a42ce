// Thread state, read and written through the graph and Warren's checkpointer. The API never
// executes a node here: getState, updateState and getStateHistory only touch checkpoints.
import type { RunnableConfig } from '@langchain/core/runnables';
import { Command, InvalidUpdateError, type StateSnapshot } from '@langchain/langgraph';
import { DEFAULT_GRAPH_ID, type GraphRegistry, type HostedGraph } from '../../graphs/registry.js';
import { checkCheckpointThread } from '../admission/run-checks.js';
import { toWire } from '../../graphs/serialize.js';
import { checkpointRef, publicConfig } from '../../graphs/wire-config.js';
import type { Thread } from '../store/records.js';
import { ThreadBusyError } from '../store/store.errors.js';
import type { Stores } from '../stores.js';
import { GraphNodeUnknownError, StateUpdateInvalidError, SubgraphNotFoundError, ThreadGraphMissingError } from './runtime.errors.js';
import type { HistoryBody, StateUpdate, Superstep, ThreadState } from './threads.schemas.js';

type CheckpointRef = { thread_id?: string; checkpoint_id?: string; checkpoint_ns?: string | null; checkpoint_map?: Record<string, unknown> | null };

/**
 * The `as_node` names LangGraph's bulk update takes besides the graph's nodes: `__input__` writes
 * the update as the graph's input (the first checkpoint of a thread built from supersteps),
 * `__copy__` forks the checkpoint as is, and `__end__` with no values ends the thread's run.
 */
const PSEUDO_NODES: ReadonlySet<string> = new Set(['__input__', '__copy__', '__end__']);

const EMPTY_STATE: ThreadState = {
  values: {},
  next: [],
  tasks: [],
  checkpoint: null,
  metadata: null,
  created_at: null,
  parent_checkpoint: null,
  config: {},
};

export function toThreadState(snapshot: StateSnapshot): ThreadState {
  const metadata = snapshot.metadata ? { ...(snapshot.metadata as Record<string, unknown>) } : null;
  if (metadata && metadata.checkpoint_ns === '') delete metadata.checkpoint_ns;
  return {
    values: toWire(snapshot.values ?? {}),
    next: [...(snapshot.next ?? [])],
    tasks: (snapshot.tasks ?? []).map((task) => {
      const state = task.state as StateSnapshot | RunnableConfig | undefined;
      const isSnapshot = state !== undefined && 'values' in state;
      return {
        id: task.id,
        name: task.name,
        error: task.error ? String((task.error as Error).message ?? task.error) : null,
        interrupts: toWire(task.interrupts ?? []),
        path: toWire(task.path ?? []),
        // As LangGraph's server: a subgraph task's own config address (thread and namespace,
        // no checkpoint id until it has one), and `result: null` for a task without one.
        checkpoint: !isSnapshot && state?.configurable ? toWire(publicConfig(state).configurable) : null,
        state: isSnapshot ? toThreadState(state) : null,
        result: task.result === undefined ? null : toWire(task.result),
      };
    }),
    checkpoint: checkpointRef(snapshot.config, false),
    metadata: metadata ? toWire(metadata) : null,
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointRef(snapshot.parentConfig, false),
    config: toWire(publicConfig(snapshot.config)),
  };
}

const UNKNOWN_SUBGRAPH = /^Subgraph ".*" not found$/s;

/**
 * LangGraph answers a client's bad reference or update with plain errors, which would become
 * 500s (and SDK retries): a `checkpoint_ns` naming no subgraph, an update the graph cannot
 * apply. They are translated here, where they are caught; anything else is rethrown as is.
 */
async function translateGraphErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof InvalidUpdateError) throw new StateUpdateInvalidError(err.message, { cause: err });
    if (err instanceof Error && UNKNOWN_SUBGRAPH.test(err.message)) throw new SubgraphNotFoundError(err.message, { cause: err });
    throw err;
  }
}

type CommandBody = { resume?: unknown; update?: unknown; goto?: unknown };

function commandOf(command: CommandBody): Command {
  return new Command({
    ...(command.resume !== undefined ? { resume: command.resume } : {}),
    ...(command.update !== undefined && command.update !== null ? { update: command.update as Record<string, unknown> } : {}),
    ...(command.goto !== undefined && command.goto !== null ? { goto: command.goto as string } : {}),
  });
}

const graphIdOf = (thread: Thread): string | null =>
  typeof thread.metadata.graph_id === 'string' ? thread.metadata.graph_id : null;

function stateConfig(threadId: string, ref?: CheckpointRef | null): RunnableConfig {
  checkCheckpointThread(ref, threadId);
  return {
    configurable: {
      thread_id: threadId,
      checkpoint_ns: ref?.checkpoint_ns ?? '',
      ...(ref?.checkpoint_id ? { checkpoint_id: ref.checkpoint_id } : {}),
      ...(ref?.checkpoint_map ? { checkpoint_map: ref.checkpoint_map } : {}),
    },
  };
}

export interface StateServiceDeps {
  stores: Pick<Stores, 'threads' | 'runs'>;
  graphs: Pick<GraphRegistry, 'load'>;
  /** The config of the thread's assistant: a factory graph is built with it, as for the thread's runs. */
  assistantConfig(assistantId: string): Promise<RunnableConfig>;
}

/**
 * LangGraph looks a node up with `nodes[as_node] === undefined`, which "__proto__" or
 * "constructor" pass (they are inherited), and then fails with a TypeError: checked here. In a
 * subgraph's namespace the nodes are the subgraph's, which LangGraph checks itself (a 422).
 */
function isKnownNode(graph: HostedGraph, name: string, inSubgraph = false): boolean {
  if (PSEUDO_NODES.has(name)) return true;
  return inSubgraph ? !(name in Object.prototype) : Object.hasOwn(graph.nodes, name);
}

export function createStateService(deps: StateServiceDeps) {
  const { threads, runs } = deps.stores;

  // LangGraph's server builds the graph with the thread's config (its assistant's, merged with
  // its runs'): a factory may give a node only under that config, so state is read and written
  // through the same graph the thread's runs had.
  const graphFor = async (threadId: string, thread: Thread, fallback: boolean) => {
    const graphId = graphIdOf(thread) ?? (fallback ? DEFAULT_GRAPH_ID : null);
    if (!graphId) return null;
    const assistantId = typeof thread.metadata.assistant_id === 'string' ? thread.metadata.assistant_id : graphId;
    const config = await deps.assistantConfig(assistantId);
    return deps.graphs.load(graphId, { ...config, configurable: { ...config.configurable, ...stateConfig(threadId).configurable, graph_id: graphId, assistant_id: assistantId } });
  };

  return {
    async get(threadId: string, options: { subgraphs?: boolean; checkpoint?: CheckpointRef | null } = {}): Promise<ThreadState> {
      const thread = await threads.require(threadId);
      const graph = await graphFor(threadId, thread, false);
      if (!graph) return EMPTY_STATE;
      const snapshot = await translateGraphErrors(() =>
        graph.getState(stateConfig(threadId, options.checkpoint), { subgraphs: options.subgraphs ?? false }),
      );
      return toThreadState(snapshot);
    },

    async update(threadId: string, body: StateUpdate): Promise<{ checkpoint: Record<string, unknown> }> {
      const thread = await threads.require(threadId);
      if ((await runs.inflight(threadId)).length > 0) throw new ThreadBusyError(`Thread ${threadId} is busy: a run is pending or running`);
      const graph = await graphFor(threadId, thread, true);
      if (!graph) throw new ThreadGraphMissingError(`Thread ${threadId} has no graph`);
      const ref = body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : undefined);
      if (body.as_node !== undefined && !isKnownNode(graph, body.as_node, Boolean(ref?.checkpoint_ns))) {
        throw new GraphNodeUnknownError(`Node "${body.as_node}" does not exist`);
      }
      const next = await translateGraphErrors(() => graph.updateState(stateConfig(threadId, ref), body.values ?? null, body.as_node));
      const snapshot = await graph.getState(stateConfig(threadId));
      await threads.setValues(threadId, toWire(snapshot.values ?? {}));
      if (!graphIdOf(thread)) await threads.patchMetadata(threadId, { graph_id: DEFAULT_GRAPH_ID });
      return { checkpoint: toWire(publicConfig(next).configurable) };
    },

    /**
     * Applies supersteps as real checkpoints, one per superstep, each update as if written by
     * its `as_node` (LangGraph's bulk update: how a thread is created with a history).
     */
    async bulkUpdate(threadId: string, supersteps: readonly Superstep[]): Promise<void> {
      const thread = await threads.require(threadId);
      const graph = await graphFor(threadId, thread, true);
      if (!graph) throw new ThreadGraphMissingError(`Thread ${threadId} has no graph`);
      const steps = supersteps.map((step, i) => ({
        updates: step.updates.map((update, j) => {
          if (!isKnownNode(graph, update.as_node)) {
            throw new GraphNodeUnknownError(`supersteps[${i}].updates[${j}].as_node: node "${update.as_node}" does not exist`);
          }
          return { values: update.command ? commandOf(update.command) : (update.values ?? null), asNode: update.as_node };
        }),
      }));
      await translateGraphErrors(() => graph.bulkUpdateState(stateConfig(threadId), steps));
      const snapshot = await graph.getState(stateConfig(threadId));
      await threads.setValues(threadId, toWire(snapshot.values ?? {}));
      if (!graphIdOf(thread)) await threads.patchMetadata(threadId, { graph_id: DEFAULT_GRAPH_ID });
    },

    async history(threadId: string, body: HistoryBody): Promise<ThreadState[]> {
      const thread = await threads.require(threadId);
      const graph = await graphFor(threadId, thread, false);
      if (!graph) return [];
      const beforeId = typeof body.before === 'string' ? body.before : body.before?.configurable.checkpoint_id;
      return translateGraphErrors(async () => {
        const out: ThreadState[] = [];
        for await (const snapshot of graph.getStateHistory(stateConfig(threadId, body.checkpoint), {
          limit: body.limit,
          ...(beforeId ? { before: { configurable: { checkpoint_id: beforeId } } } : {}),
          ...(body.metadata ? { filter: body.metadata } : {}),
        })) {
          out.push(toThreadState(snapshot));
        }
        return out;
      });
    },
  };
}

export type StateService = ReturnType<typeof createStateService>;
