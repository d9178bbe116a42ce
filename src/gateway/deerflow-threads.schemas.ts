// DeerFlow's own /api/threads routes (backend/app/gateway/routers/threads.py at f1f4af99b), in its
// field names: the current UI creates side conversations with POST /api/threads, renames and pins
// with PATCH /api/threads/{id}, and its LangGraph client's thread calls land on these routes
// behind DeerFlow's proxy. Warren serves the same threads at /api/langgraph/threads.
import { Type, type Static } from 'typebox';
import { CheckpointRefSchema } from '../queue/run-kwargs.js';
import { JsonObjectSchema, ThreadStatusSchema } from '../store/records.js';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';
import { THREAD_FIELDS, ThreadSortBySchema } from '../runtime/threads.schemas.js';

/** DeerFlow's ThreadResponse. */
export const DfThreadSchema = Type.Object({
  thread_id: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  metadata: JsonObjectSchema,
  values: JsonObjectSchema,
  interrupts: JsonObjectSchema,
});
export type DfThread = Static<typeof DfThreadSchema>;

export const DfThreadCreateSchema = Type.Object(
  {
    thread_id: Type.Optional(Type.Union([Type.String({ pattern: THREAD_ID_PATTERN }), Type.Null()])),
    /** Kept in the thread's metadata as `assistant_id`. */
    assistant_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()])),
    metadata: Type.Optional(JsonObjectSchema),
  },
  { additionalProperties: false },
);
export type DfThreadCreate = Static<typeof DfThreadCreateSchema>;

export const DfThreadSearchSchema = Type.Object(
  {
    /** Exact match on each key. */
    metadata: Type.Optional(JsonObjectSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    status: Type.Optional(Type.Union([ThreadStatusSchema, Type.Null()])),
    // LangGraph's search fields, which DeerFlow's UI sends through the SDK when its nginx rewrites
    // /api/langgraph to /api: DeerFlow's gateway ignores them, Warren honours them.
    sort_by: Type.Optional(ThreadSortBySchema),
    sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    select: Type.Optional(Type.Array(Type.Union(THREAD_FIELDS.map((f) => Type.Literal(f))), { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type DfThreadSearch = Static<typeof DfThreadSearchSchema>;

/** A search row: every field, or those `select` names. */
export const DfThreadRowSchema = Type.Partial(DfThreadSchema);

/** GET /api/threads (Warren's): the caller's threads, newest activity first, as the search answers them. */
export const DfThreadListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    status: Type.Optional(ThreadStatusSchema),
  },
  { additionalProperties: false },
);

export const DfThreadPatchSchema = Type.Object({ metadata: Type.Optional(JsonObjectSchema) }, { additionalProperties: false });
export type DfThreadPatch = Static<typeof DfThreadPatchSchema>;

/** DeerFlow's ThreadStateResponse. */
export const DfThreadStateSchema = Type.Object({
  values: JsonObjectSchema,
  next: Type.Array(Type.String()),
  metadata: JsonObjectSchema,
  checkpoint: JsonObjectSchema,
  checkpoint_id: Type.Union([Type.String(), Type.Null()]),
  parent_checkpoint_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Union([Type.String(), Type.Null()]),
  tasks: Type.Array(JsonObjectSchema),
});
export type DfThreadState = Static<typeof DfThreadStateSchema>;

/** DeerFlow's ThreadStateUpdateRequest. */
export const DfStateUpdateSchema = Type.Object(
  {
    values: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    checkpoint_id: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()])),
    checkpoint: Type.Optional(Type.Union([CheckpointRefSchema, Type.Null()])),
    as_node: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type DfStateUpdate = Static<typeof DfStateUpdateSchema>;

/** DeerFlow's HistoryEntry. */
export const DfHistoryEntrySchema = Type.Object({
  checkpoint_id: Type.String(),
  parent_checkpoint_id: Type.Union([Type.String(), Type.Null()]),
  metadata: JsonObjectSchema,
  values: JsonObjectSchema,
  created_at: Type.Union([Type.String(), Type.Null()]),
  next: Type.Array(Type.String()),
});
export type DfHistoryEntry = Static<typeof DfHistoryEntrySchema>;

export const DfHistoryRequestSchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    /** A checkpoint id: entries older than it. */
    before: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type DfHistoryRequest = Static<typeof DfHistoryRequestSchema>;
