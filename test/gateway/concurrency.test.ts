// src/gateway/concurrency.ts: the per-thread lock and the conversion limiter.
import { describe, expect, it } from 'vitest';
import { createKeyedLock, createLimiter } from '../../src/gateway/concurrency.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('createKeyedLock', () => {
  it('runs tasks of one key one at a time, other keys in parallel, and forgets idle keys', async () => {
    const lock = createKeyedLock();
    const log: string[] = [];
    let release!: () => void;
    const first = lock.run('a', async () => {
      log.push('a1 start');
      await new Promise<void>((r) => (release = r));
      log.push('a1 end');
    });
    const second = lock.run('a', async () => void log.push('a2'));
    const other = lock.run('b', async () => void log.push('b1'));
    await other;
    await tick();
    expect(log).toEqual(['a1 start', 'b1']);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
    await tick();
    expect(lock.size()).toBe(0);
  });

  it('a failing task does not block the next one', async () => {
    const lock = createKeyedLock();
    await expect(lock.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.run('k', async () => 'next')).toBe('next');
  });
});

describe('createLimiter', () => {
  it('never runs more than its limit at once, and runs everything', async () => {
    const limiter = createLimiter(2);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        limiter.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await tick();
          active--;
          if (i === 3) throw new Error('one fails');
          return i;
        }).catch(() => -1),
      ),
    );
    expect(peak).toBe(2);
    expect(results).toEqual([0, 1, 2, -1, 4, 5, 6, 7, 8, 9]);
  });
});
