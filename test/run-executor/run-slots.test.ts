// A worker process's run slots (#22), steering real BullMQ Workers on the test Redis: any queue
// takes every free slot, never more than the limit; a full process pauses every Worker and a
// freed slot wakes them, one whose fetch loop ended while paused included; a slot is given
// back once however often it is released.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RunSlots } from '../../workers/run-executor/run-slots.js';
import { testBullmq } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const LIMIT = 3;
let bull: ReturnType<typeof testBullmq>;
let queues: Queue[];
let workers: Worker[];
/** Job ids the Workers were handed, by queue. */
const handed = new Map<string, string[]>();

beforeAll(async () => {
  bull = testBullmq(inject('redisUrl'));
  const names = [`slots-${randomUUID().slice(0, 8)}-a`, `slots-${randomUUID().slice(0, 8)}-b`];
  queues = names.map((name) => new Queue(name, { connection: bull.connection, prefix: bull.prefix(name) }));
  workers = names.map((name) => {
    handed.set(name, []);
    // A short block: a paused Worker's idle fetch ends soon, and with it its fetch loop.
    return new Worker(name, async (job) => void handed.get(name)?.push(job.id as string), { connection: bull.connection, prefix: bull.prefix(name), concurrency: LIMIT, drainDelay: 1 });
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});

afterAll(async () => {
  await Promise.all(workers?.map((w) => w.close()) ?? []);
  await Promise.all(queues?.map(async (q) => (await q.obliterate({ force: true }), await q.close())) ?? []);
  bull?.close();
});

const [a, b] = [() => workers[0] as Worker, () => workers[1] as Worker];

describe('run slots', () => {
  it('let one queue take every slot and no more, pause the Workers when full, and wake them when one is freed', async () => {
    const slots = new RunSlots(LIMIT, workers);
    try {
      expect([a().concurrency, b().concurrency]).toEqual([LIMIT, LIMIT]);
      const first = slots.take(a().name);
      const second = slots.take(a().name);
      // A Worker may fetch its own runs plus the free slots ahead.
      expect([a().concurrency, b().concurrency]).toEqual([3, 1]);
      expect(a().isPaused() || b().isPaused()).toBe(false);

      const third = slots.take(a().name);
      expect(slots.running).toBe(LIMIT);
      expect(slots.take(b().name), 'no slot beyond the limit, for any queue').toBeNull();
      expect([a().isPaused(), b().isPaused()]).toEqual([true, true]);

      second?.release();
      second?.release();
      expect(slots.running, 'a slot released twice is given back once').toBe(2);
      expect([a().isPaused(), b().isPaused()]).toEqual([false, false]);
      const other = slots.take(b().name);
      expect(other).not.toBeNull();
      expect(slots.take(b().name)).toBeNull();
      for (const slot of [first, third, other]) slot?.release();
      expect(slots.running).toBe(0);
      expect([a().concurrency, b().concurrency]).toEqual([LIMIT, LIMIT]);
    } finally {
      slots.close();
    }
  });

  it('wake a Worker whose fetch loop ended while the process was full, and it takes jobs again', async () => {
    const slots = new RunSlots(1, workers);
    try {
      const only = slots.take(a().name);
      expect(b().isPaused()).toBe(true);
      // Paused with nothing in hand, b's loop ends once its blocking fetch does.
      await waitFor(async () => !b().isRunning(), "the paused Worker's fetch loop to end");
      only?.release();
      await waitFor(async () => b().isRunning() && !b().isPaused(), 'the Worker to run again');
      const job = await (queues[1] as Queue).add('run', {});
      await waitFor(async () => handed.get(b().name)?.includes(job.id as string), 'the woken Worker to take a job');
    } finally {
      slots.close();
    }
  });
});
