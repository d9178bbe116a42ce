// Thread cleanup: removes WARREN_HOME/threads/{id} once the runtime thread is gone. Idempotent.
import type { ThreadFiles } from '../store/thread-files.js';
import type { Success } from './common.schemas.js';

export function createThreadCleanupService(files: ThreadFiles) {
  return {
    async remove(threadId: string): Promise<Success> {
      await files.removeThread(threadId);
      return { success: true, message: `Deleted local thread data for ${threadId}` };
    },
  };
}

export type ThreadCleanupService = ReturnType<typeof createThreadCleanupService>;
