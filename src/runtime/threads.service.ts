// Threads: create, read, patch, delete (with their runs, checkpoints, crons and files), search.
import { randomUUID } from 'node:crypto';
import { OptionUnsupportedError } from '../errors.js';
import { checkCreate, type AccessPolicy } from '../auth/access.js';
import { ownerFilter, type Identity } from '../auth/identity.js';
import type { Thread } from '../store/records.js';
import type { ThreadSearch as ThreadSearchQuery } from '../store/threads.js';
import type { Stores } from '../stores.js';
import { signalCancel, type CancelSignals } from '../admission/cancel-run.js';
import type { StateService } from './state.service.js';
import type { ThreadCount, ThreadCreate, ThreadPatch, ThreadSearch } from './threads.schemas.js';

export interface ThreadsServiceDeps {
  stores: Pick<Stores, 'threads' | 'runs' | 'checkpointer' | 'feedback' | 'goals'>;
  cancelSignals: CancelSignals;
  state: Pick<StateService, 'bulkUpdate'>;
  /** Deletes the thread's crons (and their schedulers) with the thread. */
  removeCrons(threadId: string): Promise<void>;
  /** A custom auth module's handlers (OPEN_ACCESS: none). */
  access: AccessPolicy;
  /** Removes the thread's folder under WARREN_HOME, under the thread's uploads lock. */
  removeFiles(threadId: string): Promise<void>;
}

/** Threads live until deleted: a time-to-live would need a sweeper Warren does not run. */
function refuseTtl(ttl: unknown): void {
  if (ttl !== undefined && ttl !== null) {
    throw new OptionUnsupportedError('ttl: thread time-to-live is not supported by Warren; threads are kept until deleted');
  }
}

export function createThreadsService(deps: ThreadsServiceDeps) {
  const { threads, runs, checkpointer, feedback, goals } = deps.stores;

  /**
   * Deletes whatever the thread has: crons, runs, records, checkpoints, files, and last the owner
   * key, which kept the id from being claimed by someone else while any of it was there. A thread
   * id that has only files (an upload before the thread was made) loses those and its owner.
   */
  async function erase(threadId: string): Promise<void> {
    // First: a tick must not start a run on a thread on its way out.
    await deps.removeCrons(threadId);
    // Stop whatever still runs on the thread before its records go.
    for (const run of await runs.inflight(threadId)) await signalCancel(deps, threadId, run.run_id, 'interrupt');
    await threads.remove(threadId);
    await runs.removeAll(threadId);
    await checkpointer.deleteThread(threadId);
    // DeerFlow's notes on the thread (its runs' feedback, its goal) go with it.
    await feedback.removeThread(threadId);
    await goals.remove(threadId);
    await deps.removeFiles(threadId);
    await threads.releaseOwner(threadId);
  }

  async function remove(threadId: string): Promise<void> {
    await threads.require(threadId);
    await erase(threadId);
  }

  /** What a search or count of `identity` adds: their own index, and the custom handlers' filter. */
  async function visibleTo(identity: Identity, body: ThreadCount): Promise<Pick<ThreadSearchQuery, 'owner' | 'accessFilter'>> {
    const accessFilter = await deps.access.check({ identity, resource: 'threads', action: 'search', value: { ...body } });
    return { ...ownerFilter(identity), ...(accessFilter ? { accessFilter } : {}) };
  }

  return {
    /**
     * LangGraph's create. `options.handoff` (DeerFlow's POST /api/threads) marks the new thread
     * for the same user's LangGraph client to create again: DeerFlow's UI makes a thread through
     * its gateway, then its SDK creates that id at /api/langgraph/threads without `if_exists`.
     */
    async create(body: ThreadCreate, identity: Identity, options: { handoff?: boolean } = {}): Promise<Thread> {
      refuseTtl(body.ttl);
      const threadId = body.thread_id ?? randomUUID();
      // LangGraph's default: an existing id is a 409, but for a handoff nothing has run on yet,
      // answered once as it is. An explicit `raise` never gets that exception.
      const ifExists = body.if_exists ?? 'raise';
      const metadata = await checkCreate(deps.access, identity, 'threads', { thread_id: threadId, metadata: body.metadata ?? {}, if_exists: ifExists });
      const supersteps = body.supersteps ?? [];
      const existed = supersteps.length > 0 && (await threads.get(threadId)) !== null;
      const thread = await threads.create({
        threadId,
        metadata,
        ifExists: body.if_exists ?? 'take_handoff',
        owner: identity.user,
        ...(options.handoff ? { handoff: true } : {}),
      });
      if (supersteps.length === 0 || existed) return thread;
      try {
        await deps.state.bulkUpdate(threadId, supersteps);
      } catch (err) {
        // A thread whose history could not be written is not left behind half made.
        await remove(threadId);
        throw err;
      }
      return threads.require(threadId);
    },

    get: (threadId: string) => threads.require(threadId),

    patch(threadId: string, body: ThreadPatch) {
      refuseTtl(body.ttl);
      return threads.patchMetadata(threadId, body.metadata ?? {});
    },

    /** A new thread with the same metadata, values and checkpoint history (LangGraph's copy). */
    async copy(threadId: string, identity: Identity): Promise<Thread> {
      const source = await threads.require(threadId);
      const copyId = randomUUID();
      await threads.create({ threadId: copyId, metadata: { ...source.metadata, thread_id: copyId }, ifExists: 'raise', owner: identity.user });
      await checkpointer.copyThread(threadId, copyId);
      await threads.setValues(copyId, source.values ?? {}, source.interrupts ?? {});
      // A copy runs nothing: it is idle unless its state waits on an interrupt.
      if (source.status === 'interrupted' || source.status === 'error') await threads.setStatus(copyId, source.status);
      return threads.require(copyId);
    },

    async count(body: ThreadCount, identity: Identity): Promise<number> {
      const { total } = await threads.search({ ...body, ...(await visibleTo(identity, body)), limit: 1, offset: 0, sort_by: 'updated_at', sort_order: 'desc' });
      return total;
    },

    remove,
    erase,

    async search(body: ThreadSearch, identity: Identity): Promise<{ threads: Partial<Thread>[]; total: number }> {
      const result = await threads.search({
        ...(await visibleTo(identity, body)),
        ...(body.metadata ? { metadata: body.metadata } : {}),
        ...(body.values ? { values: body.values } : {}),
        ...(body.status ? { status: body.status } : {}),
        ...(body.ids ? { ids: body.ids } : {}),
        limit: body.limit,
        offset: body.offset,
        sort_by: body.sort_by ?? 'updated_at',
        sort_order: body.sort_order ?? 'desc',
      });
      const select = body.select;
      if (!select || select.length === 0) return result;
      const projected = result.threads.map((t) => Object.fromEntries(select.map((f) => [f, t[f]])) as Partial<Thread>);
      return { threads: projected, total: result.total };
    },
  };
}

export type ThreadsService = ReturnType<typeof createThreadsService>;
