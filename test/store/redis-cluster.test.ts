// Warren on a Redis Cluster, on a real local 3-master cluster made here (whatever
// WARREN_TEST_REDIS says): REDIS_URL's cluster scheme and its mistakes (also naming the wrong
// kind of Redis); run queue shards; the stores across slots; API processes pointed at
// one node serve requests; /ready fails while the cluster's state is not ok and while it is
// down, and the process logs the outage once per interval, not per reconnect; the stream hub
// hears of entries through sharded channels, also after a restart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { spawnRedis, spawnRedisCluster, type RedisClusterProcess } from '../../src/cli/redis-process.js';
import { CLUSTER_RUN_QUEUE_SHARDS, runQueueNames, runQueueOf } from '../../src/queue/run-queue.js';
import { parseRedisTarget } from '../../src/config/redis-target.js';
import { bullPrefixFor, connectRedis } from '../../src/store/redis.js';
import { createRunStreamHub, hubListener } from '../../src/streams/run-stream-hub.js';
import { createStores } from '../../src/stores.js';
import { buildDist, startApiReplicas, type ApiReplicas } from '../support/cluster.js';
import { streamWriter } from '../support/stream-writer.js';
import { tracked, trackedDir } from '../support/leftovers.js';
import { waitFor } from '../support/wait-for.js';

let home: string;
let cluster: RedisClusterProcess;

beforeAll(async () => {
  buildDist();
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-redis-cluster-')));
  writeFileSync(path.join(home, 'config.yaml'), '{}\n');
  cluster = await spawnRedisCluster({ dataDir: path.join(home, 'redis'), overrides: { appendonly: 'no', save: '' }, nodeTimeoutMs: 1_000 });
  for (const node of cluster.nodes) tracked(node.child);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('REDIS_URL for a Redis Cluster', () => {
  it('names the nodes, credentials and TLS; one Redis stays one Redis', () => {
    expect(parseRedisTarget('redis://127.0.0.1:6379/2')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379/2' });
    expect(parseRedisTarget('redis+cluster://10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
    });
    expect(parseRedisTarget('rediss+cluster://app:p%40ss@h1:7000,[::1]:7001/')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'h1', port: 7000 },
        { host: '::1', port: 7001 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('refuses a cluster URL it cannot use with a message that says why, never the password', () => {
    const problem = (url: string) => {
      try {
        parseRedisTarget(url);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(problem('redis+cluster://')).toMatch(/names no nodes/);
    expect(problem('redis+cluster://h1')).toMatch(/"h1" is not host:port/);
    expect(problem('redis+cluster://u:secret@h1:7000,h2:99999')).toMatch(/"h2:99999" is not host:port/);
    expect(problem('redis+cluster://u:secret@h1:7000,h2:99999')).not.toContain('secret');
    expect(problem('redis+cluster://h1:7000/3')).toMatch(/no databases/);
  });
});

describe('REDIS_URL naming the wrong kind of Redis', () => {
  it('one Redis named as a cluster, or a cluster node named as one Redis: not ready, saying why, logged once', async () => {
    const single = await spawnRedis({ dataDir: path.join(home, 'single'), overrides: { appendonly: 'no', save: '' } });
    tracked(single.child);
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const asCluster = connectRedis(parseRedisTarget(`redis+cluster://127.0.0.1:${single.port}`), 'test', log, { clusterStateIntervalMs: 100 });
    const asSingle = connectRedis(parseRedisTarget(`redis://127.0.0.1:${cluster.nodes[0]?.port}`), 'test', log);
    try {
      await waitFor(async () => /is a single Redis \(cluster support disabled\)/.test(asCluster.notReadyReason() ?? ''), 'the cluster client to name the problem');
      await waitFor(async () => /is a node of a Redis Cluster/.test(asSingle.notReadyReason() ?? ''), 'the single client to name the problem');
      expect(asSingle.ready()).toBe(false);
      expect(asCluster.notReadyReason()).toContain(`redis://127.0.0.1:${single.port}`);
      expect(lines.filter((l) => l.level === 50)).toHaveLength(2);
    } finally {
      await asCluster.close();
      await asSingle.close();
      await single.stop();
    }
  });
});

describe('run queues on a Cluster', () => {
  it('are one queue on a single Redis, and shards by thread on a Cluster, each its own slot', async () => {
    const redis = connectRedis(parseRedisTarget(cluster.url), 'test', pino({ level: 'silent' }));
    try {
      expect(runQueueNames({ host: '127.0.0.1', port: 6379 }, 'runs')).toEqual(['runs']);
      const names = runQueueNames(redis.bullmqOptions, 'runs');
      expect(names).toHaveLength(CLUSTER_RUN_QUEUE_SHARDS);
      const used = new Set(Array.from({ length: 600 }, (_, i) => runQueueOf(names, `thread-${i}`)));
      expect(used.size).toBe(names.length);
      // A thread's runs always go to the same shard.
      expect(runQueueOf(names, 'thread-7')).toBe(runQueueOf(names, 'thread-7'));
      const prefixes = new Set(names.map((name) => bullPrefixFor(redis.bullmqOptions, name)));
      expect(prefixes.size).toBe(names.length);
      for (const prefix of prefixes) expect(prefix).toMatch(/^warren:bull:\{runs-shard\d\}$/);
    } finally {
      await redis.close();
    }
  });
});

describe('the stores on a Cluster', () => {
  it('creates threads and runs, lists, searches and deletes them across slots', async () => {
    const log = pino({ level: 'silent' });
    const redis = connectRedis(parseRedisTarget(`redis+cluster://127.0.0.1:${cluster.nodes[0]?.port}`), 'test', log);
    try {
      const stores = createStores(redis.command);
      const ids = Array.from({ length: 24 }, (_, i) => `cluster-thread-${i}-${Date.now()}`);
      for (const threadId of ids) await stores.threads.create({ threadId, metadata: { n: ids.indexOf(threadId) }, ifExists: 'raise', owner: 'cluster-test' });
      const found = await stores.threads.search({ ids, limit: 100, offset: 0, sort_by: 'thread_id', sort_order: 'asc' });
      expect(found.total).toBe(ids.length);
      const now = new Date().toISOString();
      for (const threadId of ids.slice(0, 6)) {
        const runId = `${threadId}-run`;
        const created = await stores.runs.create(
          { run_id: runId, thread_id: threadId, assistant_id: 'a', status: 'pending', created_at: now, updated_at: now, metadata: {}, kwargs: {}, multitask_strategy: 'enqueue', attempt: 0, cancel: null, temporary: false },
          'enqueue',
        );
        expect(created).toEqual({ dispatch: true });
        expect(await stores.runs.threadOf(runId)).toBe(threadId);
      }
      expect((await stores.runs.inflightEverywhere()).filter((r) => ids.includes(r.thread_id))).toHaveLength(6);
      for (const threadId of ids) {
        await stores.runs.removeAll(threadId);
        expect(await stores.threads.remove(threadId)).toBe(true);
      }
      expect(await stores.runs.threadOf(`${ids[0]}-run`)).toBeNull();
    } finally {
      await redis.close();
    }
  });
});

describe('API processes on a Cluster', () => {
  let replicas: ApiReplicas | undefined;
  afterAll(async () => {
    await replicas?.stop();
  });

  it('serve requests through one node named in REDIS_URL, and /ready follows the cluster state', async () => {
    // One seed node is enough: the client learns the others from it.
    const redisUrl = `redis+cluster://127.0.0.1:${cluster.nodes[1]?.port}`;
    replicas = await startApiReplicas({ apis: 1, redisUrl, home, configFile: path.join(home, 'config.yaml') });
    const api = replicas.urls[0] as string;
    await waitFor(async () => (await fetch(`${api}/ready`)).status === 200, '/ready on the cluster');
    for (let i = 0; i < 12; i += 1) {
      const res = await fetch(`${api}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { i } }) });
      expect(res.status).toBe(200);
    }
    const search = await fetch(`${api}/api/langgraph/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ limit: 100 }) });
    expect(search.status).toBe(200);
    expect(((await search.json()) as unknown[]).length).toBeGreaterThanOrEqual(12);

    // One master down: its slots are not served, the cluster's state turns `fail`.
    const [, , third] = cluster.nodes;
    await third?.stop();
    await waitFor(async () => {
      const res = await fetch(`${api}/ready`);
      return res.status === 503 && /cluster|unreachable/i.test(((await res.json()) as { detail: string }).detail);
    }, '/ready to fail with a master down');

    // All down.
    await cluster.stop();
    await waitFor(async () => (await fetch(`${api}/ready`)).status === 503, '/ready to fail with the cluster down');
    expect((await fetch(`${api}/ok`)).status).toBe(200);
    // A request that needs Redis fails with 503 {detail}, it does not wait for the cluster.
    const away = await fetch(`${api}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(away.status).toBe(503);
    expect(((await away.json()) as { detail: string }).detail).toMatch(/Redis is unreachable/);

    await cluster.start();
    for (const node of cluster.nodes) tracked(node.child);
    await waitFor(async () => (await fetch(`${api}/ready`)).status === 200, '/ready again once the cluster is back');
    const res = await fetch(`${api}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
  });

  it('logs a cluster outage once per interval, not once per reconnect', async () => {
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const redis = connectRedis(parseRedisTarget(`redis+cluster://127.0.0.1:${cluster.nodes[0]?.port}`), 'test', log);
    try {
      await waitFor(async () => redis.ready(), 'the cluster client to be ready');
      await cluster.stop();
      await waitFor(async () => !redis.ready(), 'the client to see the cluster gone');
      // Reconnect attempts go on every ~2 s per node; give them a few rounds.
      const errors = () => lines.filter((l) => l.msg === 'redis connection error').length;
      await waitFor(async () => errors() >= 1, 'the outage to be logged');
      await cluster.start();
      for (const node of cluster.nodes) tracked(node.child);
      await waitFor(async () => redis.ready(), 'the client to be back');
      // One warn per connection (command) for the whole outage: the interval is 30 s.
      expect(errors()).toBe(1);
      await waitFor(async () => lines.some((l) => l.msg === 'redis connection recovered'), 'the recovery to be logged');
    } finally {
      await redis.close();
    }
  });
});

describe('the stream hub on a Cluster', () => {
  it('hears of entries through sharded channels, and again after the cluster restarts', async () => {
    const log = pino({ level: 'silent' });
    const redis = connectRedis(parseRedisTarget(`redis+cluster://127.0.0.1:${cluster.nodes[0]?.port}`), 'test', log);
    // A one-minute quiet interval: an entry that arrives within the wait came by its hint.
    const hub = createRunStreamHub({ streams: createStores(redis.command).streams, listener: hubListener(redis), isSettled: async () => false, blockMs: 60_000 });
    try {
      await waitFor(async () => redis.ready(), 'the cluster client to be ready');
      const threadId = `hub-thread-${Date.now()}`;
      const writer = streamWriter(redis.command, threadId, 'run-1');
      const seen: string[] = [];
      hub.subscribe(threadId, 'run-1', '0', { onEntries: (entries) => void seen.push(...entries.map((e) => e.data)), onDone: () => {} });
      await waitFor(async () => hub.followed() === 1, 'the run followed');
      await writer.append('values', '"before"');
      await waitFor(async () => seen.includes('"before"'), 'the entry, by its hint');

      await cluster.stop();
      await cluster.start();
      for (const node of cluster.nodes) tracked(node.child);
      await waitFor(async () => redis.ready(), 'the client to be back');
      // The subscriber connections come back subscribed: a new entry is heard of at once again.
      await waitFor(async () => {
        await writer.append('values', '"after"');
        return seen.includes('"after"');
      }, 'an entry after the restart, by its hint', 30_000);
      expect(seen[0]).toBe('"before"');
    } finally {
      await hub.close();
      await redis.close();
    }
  });
});
