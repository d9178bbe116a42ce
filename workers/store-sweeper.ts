// Removes the store's expired items every `store.ttl.sweep_interval_minutes`. Expired items
// already read as absent; the sweep gives their memory back. Every worker runs one, and a lease
// in Redis lets one of them sweep per interval.
// The same sweep removes thread folders nothing in Redis accounts for: no thread record and no
// owner key. A thread's deletion removes its folder itself; what is left is what was written
// after it (a cancelled run's last output) or by a process that died half way.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RedisClient } from '../src/store/redis.js';
import type { Logger } from 'pino';
import { keys } from '../src/store/keys.js';
import type { ItemStore } from '../src/store/store-items.js';
import { isThreadId } from '../src/workspace/thread-files.js';

/** A day: an abandoned upload-only folder of an open deployment goes after it, a pending one is never cut short. */
export const ORPHAN_FOLDER_QUIET_MS = 24 * 3600_000;

export interface StoreSweeper {
  /** One sweep now, if no other process holds this interval's lease: how many items and folders went. */
  sweepOnce(): Promise<{ items: number; folders: number }>;
  stop(): void;
}

export interface OrphanFolders {
  /** WARREN_HOME: thread folders are under its `threads/`. */
  home: string;
  /**
   * How long a folder must be left untouched first. In an open deployment an upload before the
   * thread is made writes no owner key, so such a folder looks orphaned until the thread comes.
   */
  quietMs: number;
  /** Whether the thread has a record, and who owns its id. */
  ownership(threadId: string): Promise<{ owner: string | null; exists: boolean }>;
  /** Removes the folder under the thread's uploads lock if it is still unowned then; whether it did. */
  removeIfUnowned(threadId: string): Promise<boolean>;
}

async function threadFolders(home: string): Promise<string[]> {
  try {
    return (await readdir(path.join(home, 'threads'))).filter(isThreadId);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Folders of ids with no record and no owner, untouched for `quietMs`. */
async function sweepFolders(orphans: OrphanFolders): Promise<number> {
  let removed = 0;
  for (const threadId of await threadFolders(orphans.home)) {
    const { owner, exists } = await orphans.ownership(threadId);
    if (exists || owner !== null) continue;
    // Gone between the listing and now: nothing to do.
    const changed = await stat(path.join(orphans.home, 'threads', threadId)).catch(() => null);
    if (!changed || Date.now() - changed.mtimeMs < orphans.quietMs) continue;
    if (await orphans.removeIfUnowned(threadId)) removed++;
  }
  return removed;
}

export function startStoreSweeper(
  redis: RedisClient,
  items: Pick<ItemStore, 'sweepExpired'>,
  intervalMs: number,
  holder: string,
  log: Logger,
  orphans?: OrphanFolders,
): StoreSweeper {
  const sweepOnce = async () => {
    const leased = await redis.set(keys.storeSweepLease(), holder, 'PX', intervalMs, 'NX');
    if (leased !== 'OK') return { items: 0, folders: 0 };
    const removed = await items.sweepExpired();
    if (removed > 0) log.info({ removed }, 'store: expired items removed');
    const folders = orphans ? await sweepFolders(orphans) : 0;
    if (folders > 0) log.info({ removed: folders }, 'thread folders of deleted threads removed');
    return { items: removed, folders };
  };
  const tick = () => {
    sweepOnce().catch((err: unknown) => log.warn({ err }, 'store sweep failed; the next interval tries again'));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return { sweepOnce, stop: () => clearInterval(timer) };
}
