// The stream hub's page cache against a real Redis: one read serves every reader of a page and
// every id inside it; a cached page is short, never wrong; empty pages are not kept; the cache
// stays within its bounds, least recently used first, and forgets a stream on request.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPageCache, PAGE_ENTRIES } from '../../src/streams/run-stream-pages.js';
import { createRunStreams, type RunStreams } from '../../src/store/run-stream.js';
import { streamWriter } from '../support/stream-writer.js';

let redis: RedisClient;
beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
});
afterAll(async () => {
  await redis.quit();
});

/** The real run streams, counting XRANGE reads. */
function countingStreams(): { streams: RunStreams; reads: () => number } {
  const real = createRunStreams(redis);
  let reads = 0;
  return {
    streams: {
      ...real,
      readAfter: (...args) => {
        reads += 1;
        return real.readAfter(...args);
      },
    },
    reads: () => reads,
  };
}

async function stream(streams: RunStreams, entries: number) {
  const threadId = randomUUID();
  const runId = randomUUID();
  const writer = streamWriter(redis, threadId, runId);
  const ids: string[] = [];
  for (let i = 0; i < entries; i += 1) ids.push(await writer.append('values', JSON.stringify({ i })));
  return { ref: { key: streams.key(threadId, runId), threadId, runId }, writer, ids };
}

const numbers = (entries: { data: string }[]) => entries.map((e) => (JSON.parse(e.data) as { i: number }).i);

describe('run stream page cache', () => {
  it('serves every reader of a page, and every id inside it, from one read', async () => {
    const { streams, reads } = countingStreams();
    const pages = createPageCache(streams);
    const { ref, ids } = await stream(streams, 10);
    const [a, b] = await Promise.all([pages.read(ref, '0'), pages.read(ref, '0')]);
    expect(a).toBe(b);
    expect(numbers(a as { data: string }[])).toEqual(Array.from({ length: 10 }, (_, i) => i));
    const tail = await pages.read(ref, ids[3] as string);
    expect(numbers(tail)).toEqual([4, 5, 6, 7, 8, 9]);
    // Readers resuming at the same entry get the same array (framed once for all of them).
    expect(await pages.read(ref, ids[3] as string)).toBe(tail);
    expect(reads()).toBe(1);
    // Past its last entry the page has nothing to give: a read of its own.
    expect(await pages.read(ref, ids[9] as string)).toEqual([]);
    expect(reads()).toBe(2);
  });

  it('hands out a page older than the stream, which is short but never wrong', async () => {
    const { streams, reads } = countingStreams();
    const pages = createPageCache(streams);
    const { ref, writer, ids } = await stream(streams, 5);
    await pages.read(ref, '0');
    for (let i = 5; i < 8; i += 1) await writer.append('values', JSON.stringify({ i }));
    const stale = await pages.read(ref, '0');
    expect(numbers(stale)).toEqual([0, 1, 2, 3, 4]);
    // The reader goes on after the page's last entry and gets the rest.
    expect(numbers(await pages.read(ref, ids[4] as string))).toEqual([5, 6, 7]);
    expect(numbers(await pages.read(ref, '0', false))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(reads()).toBe(3);
  });

  it('keeps no empty page, and no page whose read failed', async () => {
    const { streams } = countingStreams();
    const pages = createPageCache(streams);
    const { ref } = await stream(streams, 0);
    expect(await pages.read(ref, '0')).toEqual([]);
    expect(pages.stats()).toEqual({ pages: 0, bytes: 0 });
    const failing = createPageCache({ ...streams, readAfter: async () => Promise.reject(new Error('Redis went away')) });
    await expect(failing.read(ref, '0')).rejects.toThrow('Redis went away');
    expect(failing.stats()).toEqual({ pages: 0, bytes: 0 });
  });

  it('stays within its bounds, least recently used first, and forgets a stream on request', async () => {
    const { streams, reads } = countingStreams();
    const pages = createPageCache(streams, { bytes: Number.MAX_SAFE_INTEGER, pages: 2 });
    const first = (await stream(streams, 3)).ref;
    const second = (await stream(streams, 3)).ref;
    const third = (await stream(streams, 3)).ref;
    await pages.read(first, '0');
    await pages.read(second, '0');
    await pages.read(first, '0'); // first is now the most recently used
    await pages.read(third, '0'); // evicts second
    expect(pages.stats().pages).toBe(2);
    const before = reads();
    await pages.read(first, '0');
    expect(reads()).toBe(before);
    await pages.read(second, '0');
    expect(reads()).toBe(before + 1);
    pages.drop(second.key);
    pages.drop(first.key);
    pages.drop(third.key);
    expect(pages.stats()).toEqual({ pages: 0, bytes: 0 });

    const small = createPageCache(streams, { bytes: 1, pages: 100 });
    await small.read(first, '0');
    expect(small.stats()).toEqual({ pages: 0, bytes: 0 });
  });

  it('reads at most a page at a time', async () => {
    const { streams } = countingStreams();
    const pages = createPageCache(streams);
    const { ref, writer } = await stream(streams, 0);
    await Promise.all(Array.from({ length: PAGE_ENTRIES + 5 }, (_, i) => writer.append('values', JSON.stringify({ i }))));
    const page = await pages.read(ref, '0');
    expect(page).toHaveLength(PAGE_ENTRIES);
    expect(await pages.read(ref, (page.at(-1) as { id: string }).id)).toHaveLength(5);
  });
});
