// Thread deletion through the gateway (DeerFlow's DELETE /api/threads/{id}): the thread's files,
// and, as DeerFlow's current gateway does, its records too, by the runtime's own deletion.
// Idempotent: an id with nothing left answers the same.
import type { Success } from './common.schemas.js';

export function createThreadCleanupService(eraseThread: (threadId: string) => Promise<void>) {
  return {
    async remove(threadId: string): Promise<Success> {
      await eraseThread(threadId);
      return { success: true, message: `Deleted local thread data for ${threadId}` };
    },
  };
}

export type ThreadCleanupService = ReturnType<typeof createThreadCleanupService>;
