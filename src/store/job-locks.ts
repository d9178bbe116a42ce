// BullMQ's job locks, as a worker that re-took its run after an outage takes them back (see
// relock-run-job-3.lua). BullMQ has no call for it: its extendLock renews only a lock that is
// still there, and after an outage longer than the lock it is gone.
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import { loadScripts, requireScript, type ScriptCaller } from './scripts.js';

export interface JobLocks {
  /**
   * Locks the job for `token` again if it is still in its queue's active list and no one else
   * holds its lock (and takes it off the stalled set); false when the job is not the caller's
   * to lock (moved back to wait, or fetched by another worker).
   */
  relock(job: { queueQualifiedName: string; id: string }, token: string, lockMs: number): Promise<boolean>;
}

export function createJobLocks(redis: RedisClient, scripts: Record<string, ScriptCaller> = loadScripts(redis)): JobLocks {
  const relockScript = requireScript(scripts, 'relockRunJob');
  return {
    async relock({ queueQualifiedName, id }, token, lockMs) {
      const jobKeys = [keys.bullJobLock(queueQualifiedName, id), keys.bullActive(queueQualifiedName), keys.bullStalled(queueQualifiedName)];
      return Number(await relockScript(jobKeys, [id, token, Math.ceil(lockMs)])) === 1;
    },
  };
}
