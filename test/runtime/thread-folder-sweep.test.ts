// The sweep of thread folders nothing in Redis accounts for (issue 33): a folder whose thread
// record and owner key are both gone, and that has been left alone long enough, is removed;
// one with a record, an owner or a recent change, and anything that is not a thread id, stays.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { startStoreSweeper, type OrphanFolders } from '../../workers/store-sweeper.js';
import { trackedDir } from '../support/leftovers.js';
import { connectTestRedis } from '../support/test-redis.js';

const QUIET_MS = 3600_000;
let redis: RedisClient;
let home: string;

beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-sweep-')));
});
afterAll(() => {
  redis?.disconnect();
  rmSync(home, { recursive: true, force: true });
});

/** A thread folder with an upload in it, last changed `ageMs` ago. */
function folder(threadId: string, ageMs: number): string {
  const dir = path.join(home, 'threads', threadId);
  mkdirSync(path.join(dir, 'user-data', 'uploads'), { recursive: true });
  writeFileSync(path.join(dir, 'user-data', 'uploads', 'notes.txt'), 'notes');
  const when = new Date(Date.now() - ageMs);
  utimesSync(dir, when, when);
  return dir;
}

describe('thread folder sweep', () => {
  it('removes only old folders whose thread and owner are gone', async () => {
    const orphan = folder(randomUUID(), 2 * QUIET_MS);
    const fresh = folder(randomUUID(), 0);
    const ownedId = randomUUID();
    const owned = folder(ownedId, 2 * QUIET_MS);
    await redis.set(keys.threadOwner(ownedId), 'alice');
    const recordId = randomUUID();
    const recorded = folder(recordId, 2 * QUIET_MS);
    await redis.hset(keys.thread(recordId), 'thread_id', recordId);
    const stranger = folder('.not a thread id', 2 * QUIET_MS);

    const ownership = async (threadId: string) => ({
      owner: await redis.get(keys.threadOwner(threadId)),
      exists: (await redis.exists(keys.thread(threadId))) === 1,
    });
    const orphans: OrphanFolders = {
      home,
      quietMs: QUIET_MS,
      ownership,
      async removeIfUnowned(threadId) {
        const { owner, exists } = await ownership(threadId);
        if (exists || owner !== null) return false;
        rmSync(path.join(home, 'threads', threadId), { recursive: true, force: true });
        return true;
      },
    };
    // The sweep at start finds the lease taken (its SET is sent before the DEL below, on this
    // one connection); the sweep that counts is the test's own.
    await redis.set(keys.storeSweepLease(), 'someone-else', 'PX', 60_000);
    const sweeper = startStoreSweeper(redis, { sweepExpired: async () => 0 }, 3600_000, `test-${randomUUID()}`, pino({ level: 'silent' }), orphans);
    sweeper.stop();
    await redis.del(keys.storeSweepLease());
    const swept = await sweeper.sweepOnce();
    await redis.del(keys.storeSweepLease(), keys.threadOwner(ownedId), keys.thread(recordId));

    expect(existsSync(orphan)).toBe(false);
    expect(swept.folders).toBe(1);
    for (const kept of [fresh, owned, recorded, stranger]) expect(existsSync(kept), kept).toBe(true);
  });
});
