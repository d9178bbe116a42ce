// Thread cleanup: removes WARREN_HOME/threads/{id} once the runtime thread is gone. Idempotent.
import type { ThreadFiles } from '../workspace/thread-files.js';
import type { Success } from './common.schemas.js';

export function createThreadCleanupService(files: ThreadFiles, releaseThreadId: (threadId: string) => Promise<void>) {
  return {
    async remove(threadId: string): Promise<Success> {
      await files.removeThread(threadId);
      // With its files gone, an id whose thread is gone too belongs to nobody any more.
      await releaseThreadId(threadId);
      return { success: true, message: `Deleted local thread data for ${threadId}` };
    },
  };
}

export type ThreadCleanupService = ReturnType<typeof createThreadCleanupService>;
