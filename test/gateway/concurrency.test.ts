// src/gateway/concurrency.ts: the conversion limiter. (The uploads lock: test/store/file-locks.test.ts.)
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/uploads/concurrency.js';

const tick = () => new Promise((r) => setImmediate(r));

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
