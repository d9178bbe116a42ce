// Thread, state and history shapes, as the LangGraph API spells them.
import { Type, type Static } from 'typebox';
import { ThreadSchema, ThreadStatusSchema } from '../store/records.js';
import { ID_PATTERN, JsonObjectSchema, OffsetSchema } from './common.schemas.js';
import { CheckpointRefSchema, CommandSchema } from '../queue/run-kwargs.js';

/** One state update of a superstep, as `POST /threads/{id}/state` takes it. */
export const SuperstepUpdateSchema = Type.Object(
  {
    values: Type.Optional(Type.Unknown()),
    command: Type.Optional(Type.Union([CommandSchema, Type.Null()])),
    as_node: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);
export const SuperstepSchema = Type.Object(
  { updates: Type.Array(SuperstepUpdateSchema, { minItems: 1, maxItems: 256 }) },
  { additionalProperties: false },
);
export type Superstep = Static<typeof SuperstepSchema>;

/** LangGraph's thread time-to-live; declared so that it is refused by name, not as an unknown key. */
const TtlSchema = Type.Unknown();

export const ThreadCreateSchema = Type.Object(
  {
    thread_id: Type.Optional(Type.String({ pattern: ID_PATTERN })),
    metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    if_exists: Type.Optional(Type.Union([Type.Literal('raise'), Type.Literal('do_nothing')])),
    supersteps: Type.Optional(Type.Union([Type.Array(SuperstepSchema, { maxItems: 1000 }), Type.Null()])),
    ttl: Type.Optional(TtlSchema),
  },
  { additionalProperties: false },
);
export type ThreadCreate = Static<typeof ThreadCreateSchema>;

export const ThreadPatchSchema = Type.Object(
  { metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])), ttl: Type.Optional(TtlSchema) },
  { additionalProperties: false },
);
export type ThreadPatch = Static<typeof ThreadPatchSchema>;

export const ThreadSortBySchema = Type.Union([
  Type.Literal('thread_id'),
  Type.Literal('status'),
  Type.Literal('created_at'),
  Type.Literal('updated_at'),
]);

export const THREAD_FIELDS = ['thread_id', 'created_at', 'updated_at', 'metadata', 'status', 'values', 'interrupts'] as const;

export const ThreadSearchSchema = Type.Object(
  {
    metadata: Type.Optional(JsonObjectSchema),
    values: Type.Optional(JsonObjectSchema),
    ids: Type.Optional(Type.Array(Type.String({ pattern: ID_PATTERN }), { maxItems: 1000 })),
    status: Type.Optional(ThreadStatusSchema),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    offset: OffsetSchema,
    sort_by: Type.Optional(ThreadSortBySchema),
    sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    select: Type.Optional(Type.Array(Type.Union(THREAD_FIELDS.map((f) => Type.Literal(f))), { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type ThreadSearch = Static<typeof ThreadSearchSchema>;

export const ThreadCountSchema = Type.Object(
  {
    metadata: Type.Optional(JsonObjectSchema),
    values: Type.Optional(JsonObjectSchema),
    status: Type.Optional(ThreadStatusSchema),
  },
  { additionalProperties: false },
);
export type ThreadCount = Static<typeof ThreadCountSchema>;

export const CheckpointSchema = Type.Object({
  thread_id: Type.String(),
  checkpoint_ns: Type.String(),
  checkpoint_id: Type.Union([Type.String(), Type.Null()]),
  checkpoint_map: Type.Union([JsonObjectSchema, Type.Null()]),
});

export const ThreadTaskSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
  interrupts: Type.Array(Type.Unknown()),
  path: Type.Optional(Type.Array(Type.Unknown())),
  checkpoint: Type.Union([JsonObjectSchema, Type.Null()]),
  state: Type.Union([Type.Unknown(), Type.Null()]),
  /** The task's result; null when it has none (yet), as LangGraph's server sends it. */
  result: Type.Unknown(),
});

export const ThreadStateSchema = Type.Object({
  values: Type.Union([JsonObjectSchema, Type.Array(Type.Unknown())]),
  next: Type.Array(Type.String()),
  tasks: Type.Array(ThreadTaskSchema),
  checkpoint: Type.Union([CheckpointSchema, Type.Null()]),
  metadata: Type.Union([JsonObjectSchema, Type.Null()]),
  created_at: Type.Union([Type.String(), Type.Null()]),
  parent_checkpoint: Type.Union([CheckpointSchema, Type.Null()]),
  config: JsonObjectSchema,
});
export type ThreadState = Static<typeof ThreadStateSchema>;

export const StateQuerySchema = Type.Object({
  subgraphs: Type.Optional(Type.Boolean()),
});

export const StateCheckpointParamsSchema = Type.Object({
  thread_id: Type.String({ pattern: ID_PATTERN }),
  checkpoint_id: Type.String({ minLength: 1, maxLength: 128 }),
});

export const StateCheckpointBodySchema = Type.Object(
  { checkpoint: CheckpointRefSchema, subgraphs: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const StateUpdateSchema = Type.Object(
  {
    values: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    as_node: Type.Optional(Type.String({ maxLength: 256 })),
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    checkpoint: Type.Optional(CheckpointRefSchema),
  },
  { additionalProperties: false },
);
export type StateUpdate = Static<typeof StateUpdateSchema>;

export const StateUpdateResultSchema = Type.Object({ checkpoint: JsonObjectSchema });

const BeforeSchema = Type.Union([
  Type.String({ maxLength: 128 }),
  Type.Object({ configurable: Type.Object({ checkpoint_id: Type.String({ maxLength: 128 }) }) }),
]);

export const HistoryBodySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    before: Type.Optional(Type.Union([BeforeSchema, Type.Null()])),
    metadata: Type.Optional(JsonObjectSchema),
    checkpoint: Type.Optional(CheckpointRefSchema),
  },
  { additionalProperties: false },
);
export type HistoryBody = Static<typeof HistoryBodySchema>;

export const HistoryQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  before: Type.Optional(Type.String({ maxLength: 128 })),
});

export { ThreadSchema };
