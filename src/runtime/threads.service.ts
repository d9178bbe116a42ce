// Threads: create, read, patch, delete (with their runs and checkpoints), search.
import { randomUUID } from 'node:crypto';
import type { Thread } from '../store/records.js';
import type { Stores } from '../store/stores.js';
import { signalCancel, type CancelSignals } from './runs.service.js';
import type { ThreadCreate, ThreadSearch } from './threads.schemas.js';

export interface ThreadsServiceDeps {
  stores: Pick<Stores, 'threads' | 'runs' | 'checkpointer'>;
  cancelSignals: CancelSignals;
}

export function createThreadsService(deps: ThreadsServiceDeps) {
  const { threads, runs, checkpointer } = deps.stores;
  return {
    create: (body: ThreadCreate) =>
      threads.create({
        threadId: body.thread_id ?? randomUUID(),
        metadata: body.metadata ?? {},
        ifExists: body.if_exists ?? 'raise',
      }),

    get: (threadId: string) => threads.require(threadId),

    patch: (threadId: string, metadata: Record<string, unknown> | null | undefined) =>
      threads.patchMetadata(threadId, metadata ?? {}),

    async remove(threadId: string): Promise<void> {
      await threads.require(threadId);
      // Stop whatever still runs on the thread before its records go.
      for (const run of await runs.inflight(threadId)) await signalCancel(deps, threadId, run.run_id, 'interrupt');
      await threads.remove(threadId);
      await runs.removeAll(threadId);
      await checkpointer.deleteThread(threadId);
    },

    async search(body: ThreadSearch): Promise<{ threads: Partial<Thread>[]; total: number }> {
      const result = await threads.search({
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
