// DeerFlow's /api/threads routes over Warren's own threads: the same records, state and
// checkpoints as /api/langgraph/threads (runtime/threads.service.ts, state.service.ts), answered
// in DeerFlow's shapes and scoped to the caller as those are (the record gate has checked a
// `:thread_id` already; a create naming an existing id checks it here).
import type { Identity } from '../auth/identity.js';
import type { StateService } from '../runtime/state.service.js';
import type { ThreadState } from '../runtime/threads.schemas.js';
import type { ThreadsService } from '../runtime/threads.service.js';
import type { Thread } from '../store/records.js';
import { ThreadExistsError } from '../store/store.errors.js';
import type {
  DfHistoryEntry,
  DfHistoryRequest,
  DfStateUpdate,
  DfThread,
  DfThreadCreate,
  DfThreadPatch,
  DfThreadSearch,
  DfThreadState,
} from './deerflow-threads.schemas.js';

export interface DeerFlowThreadsDeps {
  threads: Pick<ThreadsService, 'create' | 'get' | 'patch' | 'search'>;
  state: Pick<StateService, 'get' | 'update' | 'history'>;
  /** Throws the thread's 404 unless the identity may reach it. */
  requireThread: (identity: Identity, threadId: string) => Promise<void>;
}

type Values = Record<string, unknown>;
const objectOr = (value: unknown): Values => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Values) : {});

/** DeerFlow's ThreadResponse; `values` as the route shows them (all, only the title, or none). */
function toThread(thread: Partial<Thread>, values: Values): DfThread {
  return {
    thread_id: thread.thread_id ?? '',
    status: thread.status ?? 'idle',
    created_at: thread.created_at ?? '',
    updated_at: thread.updated_at ?? '',
    metadata: thread.metadata ?? {},
    values,
    interrupts: objectOr(thread.interrupts),
  };
}

/** A search row carries only the title among the values, as DeerFlow's thread list does. */
function titleOnly(thread: Partial<Thread>): Values {
  const title = objectOr(thread.values).title;
  return typeof title === 'string' ? { title } : {};
}

function toState(state: ThreadState): DfThreadState {
  const checkpoint = state.checkpoint ?? {};
  return {
    values: objectOr(state.values),
    next: state.next,
    metadata: state.metadata ?? {},
    checkpoint: { ...checkpoint },
    checkpoint_id: state.checkpoint?.checkpoint_id ?? null,
    parent_checkpoint_id: state.parent_checkpoint?.checkpoint_id ?? null,
    created_at: state.created_at,
    tasks: state.tasks.map((task) => ({ ...task })),
  };
}

export function createDeerFlowThreadsService(deps: DeerFlowThreadsDeps) {
  const search = async (body: DfThreadSearch, identity: Identity): Promise<DfThread[]> => {
    const { threads } = await deps.threads.search(
      {
        ...(body.metadata && Object.keys(body.metadata).length > 0 ? { metadata: body.metadata } : {}),
        ...(body.status ? { status: body.status } : {}),
        limit: body.limit ?? 100,
        offset: body.offset ?? 0,
        sort_by: body.sort_by ?? 'updated_at',
        sort_order: body.sort_order ?? 'desc',
      },
      identity,
    );
    return threads.map((t) => toThread(t, titleOnly(t)));
  };

  return {
    /**
     * Idempotent, as DeerFlow's: an id the caller already has answers that thread. A thread made
     * here may be created once more at /api/langgraph/threads by its owner (see ThreadsService.create).
     */
    async create(body: DfThreadCreate, identity: Identity): Promise<DfThread> {
      const metadata = { ...body.metadata, ...(body.assistant_id ? { assistant_id: body.assistant_id } : {}) };
      try {
        // Marked as a handoff: DeerFlow's UI creates the same id again through its LangGraph SDK.
        // `do_nothing`, so that creating it twice here leaves that mark for the SDK's create.
        const created = { ...(body.thread_id ? { thread_id: body.thread_id } : {}), metadata, if_exists: 'do_nothing' as const };
        const thread = await deps.threads.create(created, identity, { handoff: true });
        return toThread(thread, objectOr(thread.values));
      } catch (err) {
        if (!(err instanceof ThreadExistsError) || !body.thread_id) throw err;
        // Another user's id answers 404, as if it did not exist, never their thread.
        await deps.requireThread(identity, body.thread_id);
        const existing = await deps.threads.get(body.thread_id);
        return toThread(existing, objectOr(existing.values));
      }
    },

    search,

    /** POST /api/threads/search: the rows with only the fields `select` names, when it names any. */
    async searchSelected(body: DfThreadSearch, identity: Identity): Promise<Partial<DfThread>[]> {
      const rows = await search(body, identity);
      const select = body.select;
      if (!select?.length) return rows;
      return rows.map((row) => Object.fromEntries(select.map((field) => [field, row[field]])) as Partial<DfThread>);
    },

    async get(threadId: string): Promise<DfThread> {
      const thread = await deps.threads.get(threadId);
      return toThread(thread, objectOr(thread.values));
    },

    /** Merges metadata; like DeerFlow's PATCH, answers without values. */
    async patch(threadId: string, body: DfThreadPatch): Promise<DfThread> {
      const thread = await deps.threads.patch(threadId, { metadata: body.metadata ?? {} });
      return { ...toThread(thread, {}), interrupts: {} };
    },

    async state(threadId: string): Promise<DfThreadState> {
      return toState(await deps.state.get(threadId));
    },

    /** Applies the update, then answers the thread's state after it (DeerFlow's answer). */
    async updateState(threadId: string, body: DfStateUpdate): Promise<DfThreadState> {
      await deps.state.update(threadId, {
        ...(body.values !== undefined ? { values: body.values } : {}),
        ...(body.as_node ? { as_node: body.as_node } : {}),
        ...(body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : {}),
        ...(body.checkpoint ? { checkpoint: body.checkpoint } : {}),
      });
      return toState(await deps.state.get(threadId));
    },

    async history(threadId: string, body: DfHistoryRequest): Promise<DfHistoryEntry[]> {
      const states = await deps.state.history(threadId, { limit: body.limit ?? 10, ...(body.before ? { before: body.before } : {}) });
      return states.flatMap((s) => {
        const id = s.checkpoint?.checkpoint_id;
        if (!id) return [];
        return [{ checkpoint_id: id, parent_checkpoint_id: s.parent_checkpoint?.checkpoint_id ?? null, metadata: s.metadata ?? {}, values: objectOr(s.values), created_at: s.created_at, next: s.next }];
      });
    },
  };
}

export type DeerFlowThreadsService = ReturnType<typeof createDeerFlowThreadsService>;
