// A platform's inbox of events in Redis (Slack's): an event id is taken once however often it is
// delivered, entries are read in order, and only the holder of the platform's lease removes one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitForInbox } from '../../src/channels/channel-store.js';
import { keys } from '../../src/store/keys.js';
import { createStores, type Stores } from '../../src/stores.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';

let redis: RedisClient;
let blocking: RedisClient;
let stores: Stores;
beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
  blocking = connectTestRedis(inject('redisUrl'));
  stores = createStores(redis);
});
/** Event ids recorded here, whose seen markers are removed at the end. */
const recorded: string[] = [];
afterAll(async () => {
  await redis?.del(keys.channelInbox('slack'), keys.channelLease('slack'), keys.channelState('slack'), keys.channelFence('slack'), ...recorded.map((id) => keys.channelEventSeen('slack', id)));
  blocking?.disconnect();
  redis?.disconnect();
});

const body = (eventId: string) => (recorded.push(eventId), JSON.stringify({ type: 'event_callback', event_id: eventId, event: { type: 'message' } }));

describe('channel inbox', () => {
  it('takes an event id once, and hands the entries out in order', async () => {
    const [a, b] = [`Ev${randomUUID()}`, `Ev${randomUUID()}`];
    const before = await stores.channels.inbox('slack', '0-0', 1000);
    expect(await stores.channels.recordEvent('slack', a, body(a))).toBe(true);
    expect(await stores.channels.recordEvent('slack', a, body(a))).toBe(false);
    expect(await stores.channels.recordEvent('slack', b, body(b))).toBe(true);
    const after = before.at(-1)?.id ?? '0-0';
    const entries = await stores.channels.inbox('slack', after, 10);
    expect(entries.map((e) => (JSON.parse(e.body) as { event_id: string }).event_id)).toEqual([a, b]);
    // A blocking read sees the same, and only what comes after the id it is given.
    expect((await waitForInbox(blocking, 'slack', after, 100)).map((e) => e.id)).toEqual(entries.map((e) => e.id));
    expect(await waitForInbox(blocking, 'slack', entries.at(-1)?.id as string, 100)).toEqual([]);
  });

  it('removes an entry only for the holder of the lease', async () => {
    const id = `Ev${randomUUID()}`;
    await stores.channels.recordEvent('slack', id, body(id));
    const entry = (await stores.channels.inbox('slack', '0-0', 1000)).find((e) => e.body.includes(id));
    expect(entry).toBeDefined();
    await redis.del(keys.channelLease('slack'));
    const token = await stores.channels.acquire('slack', 'worker-test', 10_000);
    expect(token).not.toBeNull();
    expect(await stores.channels.dropEvent('slack', 'not-the-token', entry?.id as string)).toBe(false);
    expect((await stores.channels.inbox('slack', '0-0', 1000)).some((e) => e.id === entry?.id)).toBe(true);
    expect(await stores.channels.dropEvent('slack', token as string, entry?.id as string)).toBe(true);
    expect((await stores.channels.inbox('slack', '0-0', 1000)).some((e) => e.id === entry?.id)).toBe(false);
  });
});
