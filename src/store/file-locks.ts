// Locks for read-modify-writes of files that every API replica shares on one volume:
// extensions_config.json, and each thread's uploads with their conversion index.
//
// A lock is a Redis key holding its holder's fencing token, a number from one INCR counter, so
// no two holders ever share a token. The key expires with its lease, so a crashed holder frees
// it. A lease can also lapse under a live holder that stalled; so right before each rename the
// holder calls `confirm`, a script that checks the key still holds its token and renews the
// lease in one step. If it does not, `confirm` throws (503) and the rename never happens: a
// stale holder cannot overwrite what a newer one wrote. (What remains is a stall of a whole
// lease between `confirm` and the rename right after it: no file system renames on a condition.)
//
// In front of Redis, one queue per key in this process is the fast path: requests of one
// process take the lock in arrival order, and only the first of them waits on Redis. A wait is
// bounded: past `waitMs` the request gets a 503 rather than hanging.
import { setTimeout as delay } from 'node:timers/promises';
import type { RedisClient } from './redis.js';
import type { WriteGuard } from '../config/atomic-file.js';
import { keys } from './keys.js';
import { loadScripts, requireScript } from './scripts.js';
import { FileLockBusyError, FileLockLapsedError } from './store.errors.js';

export interface FileLockSettings {
  /**
   * How long a holder keeps the lock without confirming; a crashed holder's lock frees after it.
   * Shorter than `waitMs`, so those waiting behind a crashed holder still get their turn.
   */
  leaseMs: number;
  /** How long a request waits for the lock, in this process's queue and on Redis, before a 503. */
  waitMs: number;
}

export const DEFAULT_FILE_LOCK_SETTINGS: FileLockSettings = Object.freeze({ leaseMs: 5_000, waitMs: 10_000 });

// Between two tries for a lock another process holds: short, and random so waiters spread out.
const RETRY_MIN_MS = 5;
const RETRY_JITTER_MS = 45;

export interface FileLocks {
  /** Guards extensions_config.json. */
  extensionsConfig: WriteGuard;
  /** Guards one thread's uploads folder and its conversion index. */
  threadUploads(threadId: string): WriteGuard;
  /** Guards the custom skills' SKILL.md files and their history (edit, rollback, delete). */
  customSkills: WriteGuard;
}

/**
 * Per key, one task at a time in this process, in arrival order. A task still waiting at its
 * deadline is dropped with `late()`; one that has started always runs to its end. The map holds
 * only keys with work pending.
 */
function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, deadline: number, task: () => Promise<T>, late: () => Error): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const inTime = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      void previous.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    const current = inTime.then((ok) => (ok ? task() : Promise.reject(late())));
    // The next one waits for this task, and, if this one gave up early, for the one before it.
    // Not a drop: this task's own caller gets its error through `current`.
    const tail = Promise.all([previous, current.catch(() => undefined)]);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return current;
  };
}

export function createFileLocks(redis: RedisClient, settings: Partial<FileLockSettings> = {}): FileLocks {
  const { leaseMs, waitMs } = { ...DEFAULT_FILE_LOCK_SETTINGS, ...settings };
  const scripts = loadScripts(redis);
  const extendLock = requireScript(scripts, 'extendLock');
  const releaseLock = requireScript(scripts, 'releaseLock');
  const queue = createKeyedQueue();

  const busy = (what: string) => new FileLockBusyError(`Another change to ${what} did not finish within ${waitMs} ms; try again.`);

  /** Takes the lock before `deadline` and returns the token it holds it with. */
  async function acquire(key: string, deadline: number, what: string): Promise<string> {
    const token = String(await redis.incr(keys.lockFence()));
    for (;;) {
      if ((await redis.set(key, token, 'PX', leaseMs, 'NX')) === 'OK') return token;
      const left = deadline - Date.now();
      if (left <= 0) throw busy(what);
      await delay(Math.min(left, RETRY_MIN_MS + Math.random() * RETRY_JITTER_MS));
    }
  }

  const guard = (key: string, what: string): WriteGuard => ({
    run<T>(task: (confirm: () => Promise<void>) => Promise<T>): Promise<T> {
      const deadline = Date.now() + waitMs;
      return queue(
        key,
        deadline,
        async () => {
          const token = await acquire(key, deadline, what);
          const confirm = async () => {
            if ((await extendLock([key], [token, leaseMs])) !== 1) {
              throw new FileLockLapsedError(`The lock on ${what} lapsed before the change was saved; try again.`);
            }
          };
          try {
            return await task(confirm);
          } finally {
            // A release that fails (Redis away) leaves a key that expires with its lease.
            await releaseLock([key], [token]).catch(() => undefined);
          }
        },
        () => busy(what),
      );
    },
  });

  return {
    extensionsConfig: guard(keys.extensionsConfigLock(), 'extensions_config.json'),
    threadUploads: (threadId) => guard(keys.uploadsLock(threadId), `the uploads of thread ${threadId}`),
    customSkills: guard(keys.customSkillsLock(), 'the custom skills'),
  };
}
