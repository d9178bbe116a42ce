import { randomUUID } from 'node:crypto';
import {
  ERROR,
  emptyCheckpoint,
  uuid6,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from '@langchain/langgraph-checkpoint';
import {
  deltaChannelHistoryTests,
  validate,
  type CheckpointSaverTestInitializer,
} from '@langchain/langgraph-checkpoint-validation';
import { Annotation, StateGraph } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { RedisCheckpointSaver } from '../../src/store/checkpointer.js';
import { keys, threadKeyPattern } from '../../src/store/keys.js';
import { spawnRedisCluster } from '../../src/cli/redis-process.js';
import { parseRedisTarget } from '../../src/config/redis-target.js';
import type { RedisClient } from '../../src/store/redis.js';
import { tracked, trackedDir } from '../support/leftovers.js';
import { connectTestRedis, scanAll } from '../support/test-redis.js';

// The suite calls vitest's globals (its own CLI runs with `globals: true`); this project does not.
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });

let redis: RedisClient;
let ownCluster: { stop(): Promise<void>; dir: string } | undefined;

// `list` without a thread reads every thread that has checkpoints, so the suite needs a keyspace
// no other test file writes to: an empty logical database of the shared test server. It is
// never flushed; every thread written here is deleted through the saver. A Redis Cluster has one
// database only: on one (WARREN_TEST_REDIS=cluster), the suite makes its own 3-master cluster.
async function connectToEmptyDatabase(url: string): Promise<RedisClient> {
  if (parseRedisTarget(url).kind === 'cluster') {
    const dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-checkpointer-cluster-')));
    const cluster = await spawnRedisCluster({ dataDir: dir, overrides: { appendonly: 'no', save: '' } });
    for (const node of cluster.nodes) tracked(node.child);
    ownCluster = { stop: () => cluster.stop(), dir };
    return connectTestRedis(cluster.url);
  }
  for (let db = 15; db >= 1; db -= 1) {
    const client = new Redis(url, { db });
    if ((await client.dbsize()) === 0) return client;
    await client.quit();
  }
  throw new Error('No empty logical database on the test Redis');
}

async function deleteAllThreads(saver: RedisCheckpointSaver): Promise<void> {
  for (const threadId of await redis.smembers(keys.checkpointThreads())) await saver.deleteThread(threadId);
}

async function threadKeys(threadId: string): Promise<string[]> {
  return scanAll(redis, threadKeyPattern(threadId));
}

beforeAll(async () => {
  redis = await connectToEmptyDatabase(inject('redisUrl'));
});

afterAll(async () => {
  try {
    await deleteAllThreads(new RedisCheckpointSaver(redis));
    await redis.quit();
  } finally {
    await ownCluster?.stop();
    if (ownCluster) rmSync(ownCluster.dir, { recursive: true, force: true });
  }
});

const initializer: CheckpointSaverTestInitializer<RedisCheckpointSaver> = {
  checkpointerName: 'RedisCheckpointSaver',
  createCheckpointer: () => new RedisCheckpointSaver(redis),
  // The suite expects each saver to start from an empty store (it reuses thread ids such as "1").
  destroyCheckpointer: deleteAllThreads,
};

validate(initializer);
deltaChannelHistoryTests(initializer);

describe('RedisCheckpointSaver, beyond the validation suite', () => {
  let saver: RedisCheckpointSaver;
  let threadId: string;

  const meta = (extra: Record<string, unknown> = {}): CheckpointMetadata => ({
    source: 'loop',
    step: 0,
    parents: {},
    ...extra,
  });

  function checkpoint(values: Record<string, unknown> = {}): Checkpoint {
    const versions: ChannelVersions = Object.fromEntries(Object.keys(values).map((key) => [key, 1]));
    return { ...emptyCheckpoint(), id: uuid6(-3), channel_values: values, channel_versions: versions };
  }

  /** Puts `count` checkpoints as a chain and returns their configs, oldest first. */
  async function chain(count: number, ns = '', metadata: CheckpointMetadata = meta()): Promise<RunnableConfig[]> {
    const configs: RunnableConfig[] = [];
    let parent: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns } };
    for (let i = 0; i < count; i += 1) {
      parent = await saver.put(parent, checkpoint(), { ...metadata, step: i }, {});
      configs.push(parent);
    }
    return configs;
  }

  const idOf = (config: RunnableConfig | undefined): unknown => config?.configurable?.checkpoint_id;

  async function all(config: RunnableConfig, options?: Parameters<RedisCheckpointSaver['list']>[1]) {
    const tuples: CheckpointTuple[] = [];
    for await (const tuple of saver.list(config, options)) tuples.push(tuple);
    return tuples;
  }

  beforeEach(() => {
    saver = new RedisCheckpointSaver(redis);
    threadId = `test-${randomUUID()}`;
  });

  afterEach(async () => {
    await deleteAllThreads(saver);
  });

  it('lists newest first, honouring before and limit', async () => {
    const configs = await chain(5);
    const ids = configs.map(idOf);
    const thread = { configurable: { thread_id: threadId } };

    expect((await all(thread)).map((t) => idOf(t.config))).toEqual([...ids].reverse());
    expect((await all(thread, { limit: 2 })).map((t) => idOf(t.config))).toEqual([ids[4], ids[3]]);
    expect((await all(thread, { before: configs[3] })).map((t) => idOf(t.config))).toEqual([ids[2], ids[1], ids[0]]);
    expect((await all(thread, { before: configs[3], limit: 2 })).map((t) => idOf(t.config))).toEqual([ids[2], ids[1]]);
    expect(await all(thread, { limit: 0 })).toEqual([]);
    expect(await all(thread, { before: configs[0] })).toEqual([]);
    // A checkpoint id in the config narrows the listing to that checkpoint.
    expect((await all(configs[1] ?? thread)).map((t) => idOf(t.config))).toEqual([ids[1]]);
    // Parents are chained.
    expect(idOf((await saver.getTuple(configs[4] ?? thread))?.parentConfig)).toBe(ids[3]);
  });

  it('keeps subgraph namespaces apart', async () => {
    const sub = 'outer:3f1c|inner:9a2b';
    const root = await chain(2, '');
    const nested = await chain(3, sub);

    const latestRoot = await saver.getTuple({ configurable: { thread_id: threadId } });
    const latestSub = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: sub } });
    expect(idOf(latestRoot?.config)).toBe(idOf(root[1]));
    expect(latestSub?.config.configurable).toEqual({ thread_id: threadId, checkpoint_ns: sub, checkpoint_id: idOf(nested[2]) });
    expect(idOf(latestSub?.parentConfig)).toBe(idOf(nested[1]));

    expect(await all({ configurable: { thread_id: threadId, checkpoint_ns: sub } })).toHaveLength(3);
    expect(await all({ configurable: { thread_id: threadId, checkpoint_ns: '' } })).toHaveLength(2);
    const everything = await all({ configurable: { thread_id: threadId } });
    expect(everything.map((t) => t.config.configurable?.checkpoint_ns).sort()).toEqual(['', '', sub, sub, sub]);
    expect((await redis.smembers(keys.checkpointNamespaces(threadId))).sort()).toEqual(['', sub]);
  });

  it('filters on metadata with deep equality', async () => {
    await chain(1, '', meta({ source: 'input', tags: { team: ['a', 'b'] } }));
    await chain(1, '', meta({ source: 'loop', tags: { team: ['a'] } }));
    const thread = { configurable: { thread_id: threadId } };

    expect(await all(thread, { filter: { tags: { team: ['a', 'b'] } } })).toHaveLength(1);
    expect(await all(thread, { filter: { tags: { team: ['a'] } } })).toHaveLength(1);
    expect(await all(thread, { filter: { tags: { team: ['b'] } } })).toHaveLength(0);
    expect((await all(thread, { filter: { source: 'input', step: 0 } }))[0]?.metadata?.source).toBe('input');
    expect(await all(thread, { filter: {} })).toHaveLength(2);
  });

  it('stores values and writes byte for byte', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = 'nul\u0000 byte, é, 🦜, \r\n';
    const config = await saver.put(
      { configurable: { thread_id: threadId } },
      checkpoint({ bin: bytes, text }),
      meta({ note: text }),
      { bin: 1, text: 1 },
    );
    await saver.putWrites(config, [['bin', bytes.slice().reverse()], ['text', text]], 'task-1');

    const tuple = await saver.getTuple(config);
    expect(tuple?.checkpoint.channel_values.bin).toEqual(bytes);
    expect(tuple?.checkpoint.channel_values.text).toBe(text);
    expect(tuple?.metadata).toMatchObject({ note: text });
    expect(tuple?.pendingWrites).toEqual([
      ['task-1', 'bin', bytes.slice().reverse()],
      ['task-1', 'text', text],
    ]);
  });

  it('keeps the first regular write, replaces special ones, and orders by task path', async () => {
    const [config = {}] = await chain(1);
    await saver.putWrites(config, [['a', 'first']], 'task-1');
    await saver.putWrites(config, [['a', 'second']], 'task-1');
    await saver.putWrites(config, [[ERROR, 'boom 1']], 'task-1');
    await saver.putWrites(config, [[ERROR, 'boom 2']], 'task-1');
    await saver.putWrites(config, [['b', 'late']], 'task-0', '~2');
    await saver.putWrites(config, [['b', 'early']], 'task-9', '~1');

    expect((await saver.getTuple(config))?.pendingWrites).toEqual([
      // No task path sorts first, then by task id and index (ERROR's index is negative).
      ['task-1', ERROR, 'boom 2'],
      ['task-1', 'a', 'first'],
      ['task-9', 'b', 'early'],
      ['task-0', 'b', 'late'],
    ]);
  });

  it('deleteThread removes every key of the thread and nothing else', async () => {
    const other = threadId;
    await chain(2);
    threadId = `test-${randomUUID()}`;
    const [rootConfig = {}] = await chain(2);
    const subConfig = await saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: 'child:1' } },
      checkpoint({ x: 1 }),
      meta(),
      { x: 1 },
    );
    await saver.putWrites(rootConfig, [['x', 2]], 'task');
    await saver.putWrites(subConfig, [['x', 3]], 'task');
    expect((await threadKeys(threadId)).length).toBeGreaterThan(5);

    await saver.deleteThread(threadId);

    expect(await threadKeys(threadId)).toEqual([]);
    expect(await redis.sismember(keys.checkpointThreads(), threadId)).toBe(0);
    expect(await saver.getTuple({ configurable: { thread_id: threadId } })).toBeUndefined();
    expect(await all({ configurable: { thread_id: other } })).toHaveLength(2);
  });

  it('mints unique, ordered channel versions', () => {
    const first = saver.getNextVersion(undefined);
    const second = saver.getNextVersion(first);
    expect(String(first)).toMatch(/^0{31}1\./);
    expect(String(second) > String(first)).toBe(true);
    expect(saver.getNextVersion(first)).not.toEqual(second);
    expect(String(saver.getNextVersion(41))).toMatch(/^0{30}42\./);
  });

  it('runs a graph, and a fork does not disturb the branch it left', async () => {
    const State = Annotation.Root({
      count: Annotation<number>,
      log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode('inc', (state) => ({ count: state.count + 1, log: [`inc ${state.count}`] }))
      .addEdge('__start__', 'inc')
      .addEdge('inc', '__end__')
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: threadId } };

    await graph.invoke({ count: 0 }, config);
    await graph.invoke({ count: 10 }, config);
    const state = await graph.getState(config);
    expect(state.values).toEqual({ count: 11, log: ['inc 0', 'inc 10'] });

    // Fork from the checkpoint before the first `inc` ran and write the same channels there.
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const beforeInc = history.find((s) => s.next.includes('inc') && s.values.count === 0);
    const afterInc = history.find((s) => s.values.count === 1);
    expect(beforeInc).toBeDefined();
    const forked = await graph.updateState(beforeInc?.config ?? config, { count: 50, log: ['fork'] }, 'inc');

    expect((await graph.getState(forked)).values).toEqual({ count: 50, log: ['fork'] });
    expect((await graph.getState(afterInc?.config ?? config)).values).toEqual({ count: 1, log: ['inc 0'] });
    expect((await graph.getState(state.config)).values).toEqual({ count: 11, log: ['inc 0', 'inc 10'] });
  });
});
