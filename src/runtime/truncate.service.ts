// Dev mode's truncate (LangGraph's `POST /internal/truncate`): wipes what a project's own test
// suite asks for between its tests. It exists only when config.yaml says `dev: true`.
import type { Stores } from '../stores.js';
import type { ThreadsService } from './threads.service.js';
import type { Truncate } from './truncate.schemas.js';

export interface TruncateServiceDeps {
  stores: Pick<Stores, 'threads' | 'runs' | 'assistants' | 'checkpointer' | 'items'>;
  /** Deletes a thread with its runs, checkpoints and crons. */
  removeThread: ThreadsService['remove'];
}

/** Threads and store items are read in pages of this many. */
const PAGE = 1000;

export function createTruncateService(deps: TruncateServiceDeps) {
  const { threads, runs, assistants, checkpointer, items } = deps.stores;

  /** Every thread id, in pages (nothing is deleted while they are read). */
  async function allThreadIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await threads.search({ limit: PAGE, offset, sort_by: 'thread_id', sort_order: 'asc' });
      ids.push(...page.threads.map((t) => t.thread_id));
      if (page.threads.length < PAGE) return ids;
    }
  }

  async function clearStore(): Promise<void> {
    for (const namespace of await items.listNamespaces({ limit: PAGE })) {
      for (let page = await items.search(namespace, { limit: PAGE }); page.length > 0; page = await items.search(namespace, { limit: PAGE })) {
        for (const item of page) await items.delete(item.namespace, item.key);
      }
    }
  }

  return {
    /** As LangGraph's server: each flag wipes its part; `assistants` keeps the system assistants. */
    async truncate(flags: Truncate): Promise<void> {
      const threadIds = flags.threads || flags.runs || flags.checkpointer ? await allThreadIds() : [];
      for (const threadId of threadIds) {
        // A thread goes with its runs and checkpoints (none of them means anything without it).
        if (flags.threads) await deps.removeThread(threadId);
        else {
          if (flags.runs && (await runs.removeAll(threadId)).length > 0) await threads.setStatus(threadId, 'idle');
          if (flags.checkpointer) await checkpointer.deleteThread(threadId);
        }
      }
      if (flags.assistants) for (const assistant of await assistants.all()) await assistants.remove(assistant.assistant_id);
      if (flags.store) await clearStore();
    },
  };
}

export type TruncateService = ReturnType<typeof createTruncateService>;
