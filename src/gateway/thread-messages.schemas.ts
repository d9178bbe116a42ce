// DeerFlow's conversation-history feeds (its run-event store, category `message`), served from
// Warren's checkpoints: GET /api/threads/{thread_id}/messages, …/messages/page and a run's
// …/runs/{run_id}/messages, …/events and …/workspace-changes. Field names and types are
// DeerFlow's (backend/app/gateway/routers/thread_runs.py at f1f4af99b).
import { Type, type Static } from 'typebox';
import { JsonObjectSchema } from '../store/records.js';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

export const RunParamsSchema = Type.Object({
  thread_id: Type.String({ pattern: THREAD_ID_PATTERN }),
  run_id: Type.String({ pattern: THREAD_ID_PATTERN }),
});
export type RunParams = Static<typeof RunParamsSchema>;

const Seq = Type.Integer({ minimum: 1 });
/** DeerFlow's `limit` for the message feeds: 1..200, 50 by default. */
const MessagesLimit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });

export const MessagesQuerySchema = Type.Object({
  limit: MessagesLimit,
  before_seq: Type.Optional(Seq),
  after_seq: Type.Optional(Seq),
});
export type MessagesQuery = Static<typeof MessagesQuerySchema>;

/** `after_seq` is declared only so that it can be refused with DeerFlow's 422 text. */
export const MessagesPageQuerySchema = Type.Object({
  limit: MessagesLimit,
  before_seq: Type.Optional(Seq),
  after_seq: Type.Optional(Type.String()),
});
export type MessagesPageQuery = Static<typeof MessagesPageQuerySchema>;

export const RunEventsQuerySchema = Type.Object({
  /** Comma-separated event types (`llm.ai.response,llm.tool.result`). */
  event_types: Type.Optional(Type.String({ maxLength: 1024 })),
  /** Matches `metadata.task_id` (sub-agent steps). */
  task_id: Type.Optional(Type.String({ maxLength: 256 })),
  limit: Type.Integer({ minimum: 1, maximum: 2000, default: 500 }),
  after_seq: Type.Optional(Seq),
});
export type RunEventsQuery = Static<typeof RunEventsQuerySchema>;

export const WorkspaceChangesQuerySchema = Type.Object({
  include_files: Type.Boolean({ default: true }),
  include_diff: Type.Boolean({ default: true }),
});
export type WorkspaceChangesQuery = Static<typeof WorkspaceChangesQuerySchema>;

export const MessageEventTypeSchema = Type.Union([Type.Literal('llm.human.input'), Type.Literal('llm.ai.response'), Type.Literal('llm.tool.result')]);
export type MessageEventType = Static<typeof MessageEventTypeSchema>;

export const FeedbackSchema = Type.Object({ feedback_id: Type.String(), rating: Type.Integer(), comment: Type.Union([Type.String(), Type.Null()]) });

/** One row of a message feed: DeerFlow's run event of category `message`. */
export const MessageRowSchema = Type.Object({
  thread_id: Type.String(),
  /** The run that added the message; null for one that no run added (a state update before any run). */
  run_id: Type.Union([Type.String(), Type.Null()]),
  event_type: MessageEventTypeSchema,
  category: Type.Literal('message'),
  /** The LangChain message in its dict form (`type`, `id`, `content`, `additional_kwargs`, `tool_calls`, …). */
  content: JsonObjectSchema,
  metadata: JsonObjectSchema,
  /** The message's 1-based position in the thread's message list (see thread-messages.service.ts). */
  seq: Seq,
  created_at: Type.String(),
  /** On `/messages` and `/messages/page` rows: the caller's feedback on the run, on its last answer; null elsewhere. */
  feedback: Type.Optional(Type.Union([FeedbackSchema, Type.Null()])),
});
export type MessageRow = Static<typeof MessageRowSchema>;

export const MessageRowsSchema = Type.Array(MessageRowSchema);

export const MessagesPageSchema = Type.Object({
  data: MessageRowsSchema,
  has_more: Type.Boolean(),
  /** `data[0].seq` when `has_more`, else null. */
  next_before_seq: Type.Union([Seq, Type.Null()]),
});
export type MessagesPage = Static<typeof MessagesPageSchema>;

export const RunMessagesSchema = Type.Object({ data: MessageRowsSchema, has_more: Type.Boolean() });
export type RunMessages = Static<typeof RunMessagesSchema>;

const Count = Type.Integer({ minimum: 0 });

export const WorkspaceChangesSummarySchema = Type.Object({
  created: Count,
  modified: Count,
  deleted: Count,
  symlink_created: Count,
  additions: Count,
  deletions: Count,
  truncated: Type.Boolean(),
});

/** DeerFlow's answer for a run without a `workspace_changes` event; `files` items are open. */
export const WorkspaceChangesSchema = Type.Object({
  available: Type.Boolean(),
  version: Type.Literal(1),
  summary: WorkspaceChangesSummarySchema,
  files: Type.Array(JsonObjectSchema),
  limits: JsonObjectSchema,
});
export type WorkspaceChanges = Static<typeof WorkspaceChangesSchema>;
