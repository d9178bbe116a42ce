// What a run asks of its graph, as the API stores it on the run record (`kwargs`) and a worker
// reads it back: one schema for both sides. The runtime's request schema is built from the same
// parts, so a value the API accepts is a value the worker can read.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema } from '../store/records.js';
import { checkMessage } from './message.js';

/** The seed's eight stream modes; `tools`, `messages` or anything else is refused. */
export const StreamModeSchema = Type.Union([
  Type.Literal('values'),
  Type.Literal('messages-tuple'),
  Type.Literal('custom'),
  Type.Literal('updates'),
  Type.Literal('events'),
  Type.Literal('debug'),
  Type.Literal('tasks'),
  Type.Literal('checkpoints'),
]);
export type StreamMode = Static<typeof StreamModeSchema>;

export const NodeListSchema = Type.Union([Type.Literal('*'), Type.Array(Type.String({ maxLength: 256 }), { maxItems: 256 })]);

export const RunInputSchema = Type.Union([JsonObjectSchema, Type.Array(Type.Unknown()), Type.String(), Type.Null()]);

/**
 * A checkpoint reference, as `history`, `state` and `state.tasks[].checkpoint` give it back: the
 * `thread_id` they carry is taken (and must be the thread in the path), a null namespace is the root.
 */
export const CheckpointRefSchema = Type.Object(
  {
    thread_id: Type.Optional(Type.String({ maxLength: 128 })),
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    checkpoint_ns: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    checkpoint_map: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export const RunConfigSchema = Type.Object(
  {
    recursion_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    configurable: Type.Optional(JsonObjectSchema),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })),
    metadata: Type.Optional(JsonObjectSchema),
  },
  { additionalProperties: true },
);

export const CommandSchema = Type.Object(
  {
    resume: Type.Optional(Type.Unknown()),
    update: Type.Optional(Type.Union([JsonObjectSchema, Type.Array(Type.Unknown()), Type.Null()])),
    goto: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

/** A run may wait up to a week before it starts. */
export const AfterSecondsSchema = Type.Number({ minimum: 0, maximum: 7 * 24 * 3600 });
export const WebhookSchema = Type.String({ format: 'uri', maxLength: 2048 });

export const OnCompletionSchema = Type.Union([Type.Literal('delete'), Type.Literal('keep')]);
export const OnDisconnectSchema = Type.Union([Type.Literal('cancel'), Type.Literal('continue')]);

/**
 * The API sets every field but `on_completion` (stateless runs only); they stay optional so that
 * a record written with fewer fields still reads, and the worker falls back to its defaults.
 */
export const RunKwargsSchema = Type.Object({
  input: Type.Optional(RunInputSchema),
  command: Type.Optional(Type.Union([CommandSchema, Type.Null()])),
  config: Type.Optional(RunConfigSchema),
  context: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
  stream_mode: Type.Optional(Type.Array(StreamModeSchema)),
  stream_subgraphs: Type.Optional(Type.Boolean()),
  stream_resumable: Type.Optional(Type.Boolean()),
  interrupt_before: Type.Optional(Type.Union([NodeListSchema, Type.Null()])),
  interrupt_after: Type.Optional(Type.Union([NodeListSchema, Type.Null()])),
  checkpoint: Type.Optional(Type.Union([CheckpointRefSchema, Type.Null()])),
  on_disconnect: Type.Optional(OnDisconnectSchema),
  on_completion: Type.Optional(OnCompletionSchema),
  /** The run starts no earlier than `created_at` plus this. */
  after_seconds: Type.Optional(AfterSecondsSchema),
  /** Called when the run settles (delivered by the webhook sender, not the executor). */
  webhook: Type.Optional(WebhookSchema),
  /** The graph to run, when the run's assistant is one a client created (its id is not the graph's). */
  graph_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type RunKwargs = Static<typeof RunKwargsSchema>;

/** A stored run's kwargs, checked; a record that does not match throws a RunError naming the field. */
/** When a run may start (ms since the epoch), from its creation time and `after_seconds`. */
export function runStartsAt(createdAt: string, kwargs: Pick<RunKwargs, 'after_seconds'>): number {
  return Date.parse(createdAt) + Math.round((kwargs.after_seconds ?? 0) * 1000);
}

export const readRunKwargs = (kwargs: unknown): RunKwargs => checkMessage(RunKwargsSchema, kwargs, 'InvalidRunKwargs', 'run kwargs');

/** The checkpoint a run continues from when it names one (a regenerate, a fork); read loosely, as the worker checks the record when it runs. */
export function forkPointOf(kwargs: Record<string, unknown>): string | null {
  const checkpoint = kwargs.checkpoint;
  if (typeof checkpoint !== 'object' || checkpoint === null) return null;
  const id = (checkpoint as Record<string, unknown>).checkpoint_id;
  return typeof id === 'string' && id !== '' ? id : null;
}
