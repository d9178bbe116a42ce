// Turns a LangGraph.js graph's output into `{event, data}` pairs in the LangGraph API's naming:
// one event per chunk named after its mode, `messages` for `messages-tuple`, and
// `<mode>|<ns...>` for subgraph output when subgraphs were asked for.
import type { RunnableConfig } from '@langchain/core/runnables';
import type { HostedGraph } from '../../graphs/registry.js';
import type { StreamMode } from '../../src/queue/run-kwargs.js';
import { isCheckpointEnvelope, wireCallbackEvent, wireCheckpoint, wireDebug, wireTask } from '../../graphs/wire-config.js';
import { messageTupleJson, toWireJson } from '../../graphs/serialize.js';

/** The modes a run may ask for, as the API accepted them. */
export type WireStreamMode = StreamMode;
type LibStreamMode = 'values' | 'messages' | 'custom' | 'updates' | 'debug' | 'tasks' | 'checkpoints';

export interface GraphEvent {
  event: string;
  data: unknown;
}

export interface GraphStreamOptions {
  modes: readonly WireStreamMode[];
  subgraphs: boolean;
  config: RunnableConfig & { context?: unknown; interruptBefore?: '*' | string[]; interruptAfter?: '*' | string[] };
  signal: AbortSignal;
  runId: string;
}

function libModes(modes: readonly WireStreamMode[]): LibStreamMode[] {
  const out = new Set<LibStreamMode>();
  for (const mode of modes) {
    if (mode === 'events') continue;
    out.add(mode === 'messages-tuple' ? 'messages' : mode);
  }
  // The graph must stream something even when only `events` is wanted.
  if (out.size === 0) out.add('values');
  return [...out];
}

function eventName(mode: string, ns: readonly string[] | null | undefined, subgraphs: boolean): string {
  return subgraphs && ns && ns.length > 0 ? `${mode}|${ns.join('|')}` : mode;
}

/** Normalises a pregel chunk (`[mode, payload]` or `[ns, mode, payload]`) to a wire event. */
function chunkToEvent(chunk: unknown, options: GraphStreamOptions, wanted: ReadonlySet<string>): GraphEvent | null {
  const tuple = chunk as unknown[];
  const [ns, mode, payload] = (options.subgraphs ? tuple : [[], ...tuple]) as [string[], LibStreamMode, unknown];
  const wireMode = mode === 'messages' ? 'messages-tuple' : mode;
  if (!wanted.has(wireMode)) return null;
  if (mode === 'checkpoints' && isCheckpointEnvelope(payload)) return null;
  return { event: eventName(mode, ns, options.subgraphs), data: wirePayload(mode, payload) };
}

/** LangGraph's debug, checkpoint and task payloads in the LangGraph API's wire shapes. */
function wirePayload(mode: LibStreamMode, payload: unknown): unknown {
  if (mode === 'debug') return wireDebug(payload);
  if (mode === 'checkpoints') return wireCheckpoint(payload);
  if (mode === 'tasks') return wireTask(payload);
  return payload;
}

/** An event's data as wire JSON; a `messages` chunk's metadata is serialised once per model call. */
export function eventDataJson({ event, data }: GraphEvent): string {
  return event === 'messages' || event.startsWith('messages|') ? messageTupleJson(data) : toWireJson(data);
}

export async function* streamGraph(graph: HostedGraph, input: unknown, options: GraphStreamOptions): AsyncGenerator<GraphEvent> {
  const wanted = new Set<string>(options.modes);
  const streamMode = libModes(options.modes);
  const common = {
    ...options.config,
    streamMode,
    subgraphs: options.subgraphs,
    signal: options.signal,
    // Each step's checkpoint is stored before the next step starts: a crashed or cancelled run
    // leaves no write in flight, so resume and rollback see exactly what was done.
    durability: 'sync' as const,
  };

  if (!wanted.has('events')) {
    for await (const chunk of await graph.stream(input, common)) {
      const event = chunkToEvent(chunk, options, wanted);
      if (event) yield event;
    }
    return;
  }

  // `events` needs the callback event stream; the graph's own stream chunks ride inside it as
  // the root run's `on_chain_stream` events.
  const events = graph.streamEvents(input, { ...common, version: 'v2', runId: options.runId }) as unknown;
  for await (const ev of events as AsyncIterable<{ event: string; run_id: string; data: { chunk?: unknown }; tags?: string[] }>) {
    if (ev.tags?.includes('langsmith:hidden')) continue;
    if (ev.event === 'on_chain_stream' && (options.subgraphs || ev.run_id === options.runId)) {
      const event = chunkToEvent(ev.data.chunk, options, wanted);
      if (event) yield event;
    } else {
      yield { event: 'events', data: wireCallbackEvent(ev) };
    }
  }
}
