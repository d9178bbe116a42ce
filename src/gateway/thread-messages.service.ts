// A thread's conversation history in DeerFlow's feed shape, read from Warren's own state.
//
// DeerFlow appends each message to a run-event store as the run goes and numbers the rows with a
// per-thread `seq`. Warren keeps no such store: the thread's messages are in its latest checkpoint,
// read here through the same graph-state path as GET /api/langgraph/threads/{id}/state. A
// message's `seq` is its 1-based position in that list. LangGraph's `messages` reducer only
// appends (a message sent again with the same id is replaced in place), so a position keeps naming
// the same message from run to run, and paging backwards by `before_seq` never skips or repeats
// a row while runs add messages at the end.
//   After a rollback (a cancel with action=rollback), the run's checkpoints and its record are
// removed, so the positions it had filled are free again and the next run's messages take them:
// a client still holding those seqs sees other messages there, which is what DeerFlow's UI
// expects after it reloads the thread. The same holds after a branch (a run or a state update
// from an older checkpoint): positions past the fork point name the new branch's messages.
// When the thread's latest run is an edit-and-rerun that failed, the feed is read where the thread
// stood when that attempt started (its `checkpoint_before`), as DeerFlow hides such an attempt and
// shows the turn it meant to replace. A
// state update that removes messages (RemoveMessage) shifts every later position.
//
// Which run added a message: a run records `checkpoint_before`, the thread's head when it first
// started; the first request that needs it counts `messages_before`, the messages where the run's
// own begin (at the checkpoint it forks from, a regenerate's, else at that head), and keeps it on
// the run's record (the run's worker does not: it would read a whole checkpoint per run). So each started run claims the positions
// after that count, up to where the next run starts. This is
// exact as long as one run at a time writes the thread's main line (Warren's multitask strategies
// guarantee it); a message that a state update added between two runs is counted to the earlier
// one. The run's Redis stream is not used: it expires `stream_retention_seconds` after the run
// ends, while its checkpoints stay for as long as the thread does, so only the checkpoints answer
// the same an hour later.
//
// Cost: the thread's run records and the head's state, per request; a run not counted yet costs
// one checkpoint read, once.
import type { StateService } from '../runtime/state.service.js';
import type { RedisCheckpointSaver } from '../store/checkpointer.js';
import type { Identity } from '../auth/identity.js';
import type { FeedbackStore } from '../store/feedback.js';
import type { StoredRun } from '../store/records.js';
import { TERMINAL_RUN_STATUSES } from '../store/records.js';
import type { RunStore } from '../store/runs.js';
import type { ThreadStore } from '../store/threads.js';
import { forkPointOf } from '../queue/run-kwargs.js';
import { RunNotFoundError } from '../store/store.errors.js';
import { MessageCursorUnsupportedError } from './gateway.errors.js';
import type {
  MessageEventType,
  MessageRow,
  MessagesPage,
  MessagesPageQuery,
  MessagesQuery,
  RunEventsQuery,
  RunMessages,
  WorkspaceChanges,
  WorkspaceChangesQuery,
} from './thread-messages.schemas.js';

export interface ThreadMessagesDeps {
  state: Pick<StateService, 'get'>;
  /** The thread's metadata: a branch's inherited rows are attributed to its seed turns. */
  threads: Pick<ThreadStore, 'get'>;
  /** Run feedback, shown on each run's last answer as DeerFlow's feeds do. */
  feedback: Pick<FeedbackStore, 'ofThread'>;
  runs: Pick<RunStore, 'list' | 'get' | 'recordMessagesBefore'>;
  checkpointer: Pick<RedisCheckpointSaver, 'messageCountAt'>;
}

const EVENT_TYPES: Readonly<Record<string, MessageEventType>> = {
  human: 'llm.human.input',
  ai: 'llm.ai.response',
  AIMessageChunk: 'llm.ai.response',
  tool: 'llm.tool.result',
};

/** Every message the lead agent's thread shows is the lead agent's (sub-agents keep their own state). */
const LEAD_AGENT = { caller: 'lead_agent' } as const;
/** DeerFlow's metadata key that marks a branch (thread-branches.service.ts sets it). */
const BRANCH_KEY = 'deerflow_branch';

/**
 * A branch's inherited messages, as DeerFlow seeds them into the branch's feed: one synthetic run
 * per inherited turn, `branch-seed-{branch}-{n}`, a turn starting at each visible user message
 * (those before the first stay in turn 0), so that regenerating the last inherited answer replaces
 * that turn only. Human and AI rows carry `caller: lead_agent`; all carry the seed marks.
 */
const seedPrefix = (threadId: string) => `branch-seed-${threadId}-`;
/** A seed turn's id on this thread (only a branch has rows with it). */
const isSeedOf = (threadId: string, runId: string): boolean => runId.startsWith(seedPrefix(threadId)) && /^\d+$/.test(runId.slice(seedPrefix(threadId).length));

function branchSeed(threadId: string, metadata: Record<string, unknown>) {
  if (metadata[BRANCH_KEY] !== true) return null;
  const marks = { branch_seed: true, branch_parent_thread_id: metadata.branch_parent_thread_id ?? null };
  let turn = 0;
  return (message: Record<string, unknown>, eventType: MessageEventType): { run_id: string; metadata: Record<string, unknown> } => {
    const hidden = isRecord(message.additional_kwargs) && message.additional_kwargs.hide_from_ui === true;
    if (eventType === 'llm.human.input' && !hidden) turn += 1;
    return { run_id: `${seedPrefix(threadId)}${turn}`, metadata: eventType === 'llm.tool.result' ? { ...marks } : { ...LEAD_AGENT, ...marks } };
  };
}
/** How many run records one read lists. */
const RUNS_BATCH = 500;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a started run's messages begin: the count of messages at its `checkpoint_before`. */
interface RunSpan {
  run: StoredRun;
  /** Messages the thread had before the run; the run's own start at position `after + 1`. */
  after: number;
}

const FAILED: readonly string[] = ['error', 'timeout', 'interrupted'];

/** The thread's latest started run, when it is an edit-and-rerun that failed and knows where it started. */
function failedEditAttempt(spans: readonly RunSpan[]): StoredRun | null {
  const latest = spans.map((span) => span.run).reduce<StoredRun | null>((a, b) => (a === null || b.created_at > a.created_at ? b : a), null);
  if (!latest || latest.metadata.replay_kind !== 'edit' || !FAILED.includes(latest.status) || typeof latest.checkpoint_before !== 'string') return null;
  return latest;
}

/** DeerFlow's `turn_duration`: whole seconds from the run's creation to its last update. */
const turnDuration = (run: StoredRun): number => Math.max(0, Math.trunc((Date.parse(run.updated_at) - Date.parse(run.created_at)) / 1000));

/** The rows `seq < before` (all with undefined), newest `limit` of them, as DeerFlow's backward cursor. */
function lastBefore(rows: readonly MessageRow[], limit: number, before?: number): { data: MessageRow[]; has_more: boolean } {
  const end = before === undefined ? rows.length : rows.findIndex((row) => row.seq >= before);
  const stop = end < 0 ? rows.length : end;
  const start = Math.max(0, stop - limit);
  return { data: rows.slice(start, stop), has_more: start > 0 };
}

/** Rows inside the optional cursors: `after < seq < before`. */
const between = (rows: readonly MessageRow[], after?: number, before?: number): MessageRow[] =>
  rows.filter((row) => (after === undefined || row.seq > after) && (before === undefined || row.seq < before));

const EMPTY_WORKSPACE_CHANGES: WorkspaceChanges = {
  available: false,
  version: 1,
  summary: { created: 0, modified: 0, deleted: 0, symlink_created: 0, additions: 0, deletions: 0, truncated: false },
  files: [],
  limits: {},
};

export function createThreadMessagesService(deps: ThreadMessagesDeps) {
  const allRuns = async (threadId: string): Promise<StoredRun[]> => {
    const out: StoredRun[] = [];
    for (let offset = 0; ; offset += RUNS_BATCH) {
      const batch = await deps.runs.list(threadId, { limit: RUNS_BATCH, offset });
      out.push(...batch);
      if (batch.length < RUNS_BATCH) return out;
    }
  };

  /** The thread's started runs by where their messages begin; of two at one place, the later one added them. */
  const spansOf = async (threadId: string): Promise<RunSpan[]> => {
    const started = (await allRuns(threadId)).filter((run) => run.checkpoint_before !== undefined);
    const spans = await Promise.all(
      started.map(async (run): Promise<RunSpan | null> => {
        if (run.messages_before !== undefined) return { run, after: run.messages_before };
        // Counted once, at the checkpoint the run continues from (a regenerate's), else where it
        // started, and kept on its record: later requests read no checkpoint for it.
        const from = forkPointOf(run.kwargs) ?? run.checkpoint_before ?? null;
        const after = from === null ? 0 : await deps.checkpointer.messageCountAt(threadId, from);
        if (after === null) return null;
        await deps.runs.recordMessagesBefore(threadId, run.run_id, after);
        return { run, after };
      }),
    );
    return spans
      .filter((span): span is RunSpan => span !== null)
      .sort((a, b) => a.after - b.after || a.run.created_at.localeCompare(b.run.created_at) || a.run.run_id.localeCompare(b.run.run_id));
  };

  /** Every visible row of the thread, ascending by seq. A thread that is not the caller's, or none, is a 404. */
  const rowsOf = async (threadId: string): Promise<MessageRow[]> => {
    const [head, allSpans, thread] = await Promise.all([deps.state.get(threadId), spansOf(threadId), deps.threads.get(threadId)]);
    // DeerFlow hides a failed edit-and-rerun and shows the turn it meant to replace: the feed is
    // then read where the thread stood when that attempt started.
    const failedEdit = failedEditAttempt(allSpans);
    const state = failedEdit ? await deps.state.get(threadId, { checkpoint: { checkpoint_id: failedEdit.checkpoint_before as string, checkpoint_ns: '' } }) : head;
    const spans = failedEdit ? allSpans.filter((span) => span.run !== failedEdit) : allSpans;
    const seed = branchSeed(threadId, thread?.metadata ?? {});
    const values = isRecord(state.values) ? state.values : {};
    const messages = Array.isArray(values.messages) ? (values.messages as unknown[]) : [];
    const headAt = state.created_at ?? new Date(0).toISOString();
    const rows: MessageRow[] = [];
    let owner = -1;
    messages.forEach((message, index) => {
      const seq = index + 1;
      while (owner + 1 < spans.length && (spans[owner + 1] as RunSpan).after < seq) owner += 1;
      const run = owner >= 0 ? (spans[owner] as RunSpan).run : null;
      if (!isRecord(message)) return;
      const eventType = EVENT_TYPES[String(message.type)];
      if (eventType === undefined) return;
      const seeded = run === null && seed ? seed(message, eventType) : null;
      rows.push({
        thread_id: threadId,
        run_id: run?.run_id ?? seeded?.run_id ?? null,
        event_type: eventType,
        category: 'message',
        content: message,
        metadata: seeded?.metadata ?? { ...LEAD_AGENT },
        seq,
        // Checkpoints time a superstep, not a message: a run's input is dated at the run's
        // creation, what it answered at its last update.
        created_at: run ? (eventType === 'llm.human.input' ? run.created_at : run.updated_at) : headAt,
      });
    });
    return withTurnDurations(rows, spans);
  };

  /** DeerFlow's `additional_kwargs.turn_duration` on the last AI row of each finished run (on a copy). */
  const withTurnDurations = (rows: MessageRow[], spans: readonly RunSpan[]): MessageRow[] => {
    const finished = new Map(spans.filter(({ run }) => TERMINAL_RUN_STATUSES.includes(run.status)).map(({ run }) => [run.run_id, run]));
    const seen = new Set<string>();
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i] as MessageRow;
      const run = row.run_id === null ? undefined : finished.get(row.run_id);
      if (!run || row.event_type !== 'llm.ai.response' || seen.has(run.run_id)) continue;
      seen.add(run.run_id);
      const kwargs = isRecord(row.content.additional_kwargs) ? row.content.additional_kwargs : {};
      rows[i] = { ...row, content: { ...row.content, additional_kwargs: { ...kwargs, turn_duration: turnDuration(run) } } };
    }
    return rows;
  };

  /** A run of the thread, or one of its branch seed turns (which have no record). */
  const requireRun = async (threadId: string, runId: string): Promise<void> => {
    if (isSeedOf(threadId, runId)) return;
    if (!(await deps.runs.get(threadId, runId))) throw new RunNotFoundError(`Run ${runId} not found`);
  };

  /** The run's rows; a run that is not this thread's is a 404, as GET /runs/{run_id} answers. */
  const runRowsOf = async (threadId: string, runId: string): Promise<MessageRow[]> => {
    const [, rows] = await Promise.all([requireRun(threadId, runId), rowsOf(threadId)]);
    return rows.filter((row) => row.run_id === runId);
  };

  /** DeerFlow's `feedback` on each row: the caller's latest on the run, on the run's last answer in the thread. */
  const withFeedback = async (threadId: string, all: readonly MessageRow[], picked: readonly MessageRow[], identity: Identity): Promise<MessageRow[]> => {
    const latest = new Map<string, MessageRow['feedback']>();
    for (const row of await deps.feedback.ofThread(threadId)) {
      if (row.user_id === identity.user) latest.set(row.run_id, { feedback_id: row.feedback_id, rating: row.rating, comment: row.comment });
    }
    const lastAnswer = new Map<string, number>();
    for (const row of all) if (row.run_id !== null && row.event_type === 'llm.ai.response') lastAnswer.set(row.run_id, row.seq);
    return picked.map((row) => ({
      ...row,
      feedback: row.run_id !== null && lastAnswer.get(row.run_id) === row.seq ? (latest.get(row.run_id) ?? null) : null,
    }));
  };

  return {
    /** How many feed rows each run added to the thread (runs with none are left out). */
    async countsByRun(threadId: string): Promise<Map<string, number>> {
      const counts = new Map<string, number>();
      for (const row of await rowsOf(threadId)) if (row.run_id !== null) counts.set(row.run_id, (counts.get(row.run_id) ?? 0) + 1);
      return counts;
    },

    /** The run that added the message, as the feed attributes it; null when none did (or no such message). */
    async runOfMessage(threadId: string, id: string): Promise<string | null> {
      return (await rowsOf(threadId)).find((row) => row.content.id === id)?.run_id ?? null;
    },

    /** GET /threads/{id}/messages: a plain list, ascending; DeerFlow's cursors (`after_seq` wins the direction). */
    async list(threadId: string, query: MessagesQuery, identity: Identity): Promise<MessageRow[]> {
      const all = await rowsOf(threadId);
      const rows = between(all, query.after_seq, query.before_seq);
      const picked = query.after_seq !== undefined ? rows.slice(0, query.limit) : rows.slice(-query.limit);
      return withFeedback(threadId, all, picked, identity);
    },

    /** GET /threads/{id}/messages/page: backwards only, `next_before_seq` is the first row's seq while more remain. */
    async page(threadId: string, query: MessagesPageQuery, identity: Identity): Promise<MessagesPage> {
      if (query.after_seq !== undefined) throw new MessageCursorUnsupportedError('after_seq is not supported by this backward-only endpoint');
      const all = await rowsOf(threadId);
      const { data, has_more } = lastBefore(all, query.limit, query.before_seq);
      return { data: await withFeedback(threadId, all, data, identity), has_more, next_before_seq: has_more ? (data[0] as MessageRow).seq : null };
    },

    /** GET /threads/{id}/runs/{run_id}/messages: with `after_seq` the first `limit` rows, else the last. */
    async ofRun(threadId: string, runId: string, query: MessagesQuery): Promise<RunMessages> {
      const rows = between(await runRowsOf(threadId, runId), query.after_seq, query.before_seq);
      const data = query.after_seq !== undefined ? rows.slice(0, query.limit) : rows.slice(-query.limit);
      return { data, has_more: rows.length > query.limit };
    },

    /**
     * GET /threads/{id}/runs/{run_id}/events: the run's message events, ascending, forward from
     * `after_seq`. Only the `message` category exists here: Warren records no trace, sub-agent
     * step or workspace events, so a filter on those (or on a `task_id`) finds nothing.
     */
    async eventsOfRun(threadId: string, runId: string, query: RunEventsQuery): Promise<MessageRow[]> {
      const types = query.event_types?.split(',').map((type) => type.trim()).filter((type) => type !== '');
      const rows = (await runRowsOf(threadId, runId)).filter(
        (row) =>
          (query.after_seq === undefined || row.seq > query.after_seq) &&
          (types === undefined || types.length === 0 || types.includes(row.event_type)) &&
          (query.task_id === undefined || row.metadata.task_id === query.task_id),
      );
      return rows.slice(0, query.limit);
    },

    /**
     * GET /threads/{id}/runs/{run_id}/workspace-changes: DeerFlow's answer for a run that recorded
     * no change set. Warren keeps no before/after snapshot of a run's files, so it cannot say what
     * a run changed: every run answers `available: false`.
     */
    async workspaceChanges(threadId: string, runId: string, _query: WorkspaceChangesQuery): Promise<WorkspaceChanges> {
      await requireRun(threadId, runId);
      return structuredClone(EMPTY_WORKSPACE_CHANGES);
    },
  };
}

export type ThreadMessagesService = ReturnType<typeof createThreadMessagesService>;
