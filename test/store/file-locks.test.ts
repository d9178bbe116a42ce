// src/store/file-locks.ts against a real Redis: one holder at a time per lock, across two
// "processes" (two lock sets on two connections); a bounded wait that ends in a 503; and the
// fence: a holder whose lease lapsed is refused at `confirm`, so its rename never lands.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FileLockBusyError } from '../../src/store/store.errors.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import { keys } from '../../src/store/keys.js';
import { writeFileAtomic } from '../../src/workspace/thread-files.js';

let one: RedisClient;
let two: RedisClient;
let dir: string;
beforeAll(() => {
  one = connectTestRedis(inject('redisUrl'));
  two = connectTestRedis(inject('redisUrl'));
  dir = mkdtempSync(path.join(tmpdir(), 'warren-file-locks-'));
});
afterAll(async () => {
  await Promise.all([one?.quit(), two?.quit()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('createFileLocks', () => {
  it('runs the tasks of one lock one at a time across two processes, and in arrival order within one', async () => {
    const thread = randomUUID();
    const [a, b] = [createFileLocks(one), createFileLocks(two)];
    let active = 0;
    let peak = 0;
    const order: string[] = [];
    const task = (name: string) => async () => {
      active++;
      peak = Math.max(peak, active);
      order.push(name);
      await new Promise((r) => setImmediate(r));
      active--;
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).threadUploads(thread).run(task(`${i % 2 ? 'a' : 'b'}${i}`))));
    expect(peak).toBe(1);
    expect(order).toHaveLength(20);
    for (const side of ['a', 'b']) {
      const mine = order.filter((n) => n.startsWith(side)).map((n) => Number(n.slice(1)));
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
  });

  it('answers 503 after a bounded wait, whether queued in this process or waiting on RedisClient, and stays usable', async () => {
    const thread = randomUUID();
    const holder = createFileLocks(one);
    const other = createFileLocks(two, { waitMs: 100 });
    const local = createFileLocks(one, { waitMs: 100 });
    const release = deferred();
    const holding = deferred();
    const held = holder.threadUploads(thread).run(async () => {
      holding.resolve();
      await release.promise;
      return 'done';
    });
    await holding.promise;
    const fromOther = other.threadUploads(thread).run(async () => 'never');
    await expect(fromOther).rejects.toBeInstanceOf(FileLockBusyError);
    await expect(fromOther).rejects.toMatchObject({ statusCode: 503, message: expect.stringMatching(/did not finish within 100 ms; try again/) });
    // Two lock sets on one connection are two queues; `local` waits on Redis like `other`.
    await expect(local.threadUploads(thread).run(async () => 'never')).rejects.toBeInstanceOf(FileLockBusyError);
    release.resolve();
    expect(await held).toBe('done');
    expect(await other.threadUploads(thread).run(async () => 'next')).toBe('next');
  });

  it('drops a task still queued in this process at its deadline, and the queue goes on', async () => {
    const thread = randomUUID();
    const locks = createFileLocks(one, { waitMs: 100 });
    const release = deferred();
    const first = locks.threadUploads(thread).run(async () => release.promise.then(() => 'first'));
    let ran = false;
    await expect(locks.threadUploads(thread).run(async () => void (ran = true))).rejects.toBeInstanceOf(FileLockBusyError);
    release.resolve();
    expect(await first).toBe('first');
    expect(await locks.threadUploads(thread).run(async () => 'third')).toBe('third');
    expect(ran).toBe(false);
  });

  it('refuses the rename of a holder whose lease lapsed, and its release leaves the new holder be', async () => {
    const thread = randomUUID();
    const file = path.join(dir, `${thread}.json`);
    const stale = createFileLocks(one, { leaseMs: 50 });
    const fresh = createFileLocks(two, { waitMs: 10_000 });
    const staleHolds = deferred();
    const freshWrote = deferred();
    const staleDone = deferred();
    const staleRun = stale.threadUploads(thread).run(async (confirm) => {
      staleHolds.resolve();
      // Stalls until the lease has lapsed and another holder has written.
      await freshWrote.promise;
      await writeFileAtomic(file, 'stale', { beforeRename: confirm });
    });
    staleRun.catch(() => undefined).finally(() => staleDone.resolve());
    await staleHolds.promise;
    const freshRun = fresh.threadUploads(thread).run(async (confirm) => {
      await writeFileAtomic(file, 'fresh', { beforeRename: confirm });
      freshWrote.resolve();
      await staleDone.promise;
      // The stale holder's release ran by now and did not free this holder's lock.
      expect(await one.get(keys.uploadsLock(thread))).not.toBeNull();
      await confirm();
    });
    await expect(staleRun).rejects.toThrow(/lapsed before the change was saved/);
    await freshRun;
    expect(readFileSync(file, 'utf8')).toBe('fresh');
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await one.get(keys.uploadsLock(thread))).toBeNull();
  });
});
