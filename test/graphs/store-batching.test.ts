// graphs/store-batching.ts replaces LangGraph's private AsyncBatchedStore polling for the whole
// process. These tests fail the moment that stops being safe or useful: another installed version
// of either LangGraph package, another shape of the class, Pregel's wrapper not being the patched
// class, calls made together no longer reaching the store as one batch, or a run that waits
// setting timers again. When one fails after an upgrade, read the new
// @langchain/langgraph-checkpoint dist/store/batch.js and @langchain/langgraph dist/pregel/loop.js,
// then fix the patch (or delete it, if LangGraph stopped polling) and bump the pinned versions.
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { Annotation, StateGraph, START, END, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { AsyncBatchedStore, BaseStore, InMemoryStore, type Operation, type OperationResults } from '@langchain/langgraph-checkpoint';
import {
  PINNED_VERSION,
  batchStoreCallsWithoutPolling,
  batchedStoreShape,
  installedCheckpointVersion,
} from '../../graphs/store-batching.js';

const require = createRequire(import.meta.url);
const LANGGRAPH_VERSION = '1.7.3';

// Read before anything patches the prototype: LangGraph's own release of the class.
const upstream = AsyncBatchedStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
const upstreamStart = String(upstream.start);
const upstreamLoop = String(upstream.processBatchQueue);

/** An InMemoryStore that records every batch it is sent, and can be slowed down or made to fail. */
class RecordingStore extends InMemoryStore {
  batches: (readonly Operation[])[] = [];
  delayMs = 0;
  failWith: Error | null = null;

  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    this.batches.push(operations);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failWith) throw this.failWith;
    return super.batch(operations);
  }
}

const State = Annotation.Root({ out: Annotation<unknown>() });

/** Runs a one-node graph with `store`, the node given the store LangGraph hands it. */
async function runNode(store: BaseStore, node: (store: BaseStore, config: LangGraphRunnableConfig) => Promise<unknown>): Promise<unknown> {
  const graph = new StateGraph(State)
    .addNode('node', async (_state, config: LangGraphRunnableConfig) => {
      if (!config.store) throw new Error('the node got no store');
      return { out: await node(config.store, config) };
    })
    .addEdge(START, 'node')
    .addEdge('node', END)
    .compile({ store });
  return (await graph.invoke({ out: null })).out;
}

describe('what the patch was written against', () => {
  it('the installed LangGraph packages are the pinned versions', () => {
    expect(installedCheckpointVersion()).toBe(PINNED_VERSION);
    expect((require('@langchain/langgraph/package.json') as { version: string }).version).toBe(LANGGRAPH_VERSION);
    // Pregel imports the same copy of the checkpoint package as the patch, so it gets the patched class.
    const fromLangGraph = createRequire(require.resolve('@langchain/langgraph/package.json'));
    expect(fromLangGraph.resolve('@langchain/langgraph-checkpoint')).toBe(require.resolve('@langchain/langgraph-checkpoint'));
  });

  it('LangGraph still polls (the reason for the patch): start() runs a setTimeout(0) loop while running', () => {
    expect(upstreamStart).toContain('this.processBatchQueue()');
    expect(upstreamLoop).toMatch(/while \(this\.running\)/);
    expect(upstreamLoop).toMatch(/setTimeout\(resolve, 0\)/);
  });

  it('AsyncBatchedStore has the shape the patch relies on', () => {
    expect(batchedStoreShape(AsyncBatchedStore, installedCheckpointVersion())).toEqual([]);
  });

  it('the shape check refuses another version, and a class whose calls skip enqueueOperation', () => {
    expect(batchedStoreShape(AsyncBatchedStore, '1.2.3')).toEqual([expect.stringMatching(/is 1\.2\.3, the patch was written against/)]);
    class Rewritten extends BaseStore {
      constructor(readonly inner: BaseStore) {
        super();
      }
      override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
        return this.inner.batch(operations);
      }
      override start(): void {}
      override async stop(): Promise<void> {}
    }
    const problems = batchedStoreShape(Rewritten, PINNED_VERSION);
    expect(problems).toEqual(
      expect.arrayContaining([
        'AsyncBatchedStore.prototype.enqueueOperation is not a method',
        'AsyncBatchedStore.prototype.isRunning is not a getter',
        'AsyncBatchedStore no longer keeps the wrapped store in `store`',
      ]),
    );
  });
});

describe('store calls from a node, patched', () => {
  it('applies (and a second call changes nothing)', () => {
    expect(batchStoreCallsWithoutPolling()).toEqual([]);
    expect(batchStoreCallsWithoutPolling()).toEqual([]);
  });

  it("the node's store is Pregel's wrapper, the patched class", async () => {
    batchStoreCallsWithoutPolling();
    const store = new RecordingStore();
    const proto = await runNode(store, async (wrapper) => Object.getPrototypeOf(wrapper) === AsyncBatchedStore.prototype);
    expect(proto).toBe(true);
  });

  it('calls made together reach the store as one batch, with each answer to its own call', async () => {
    batchStoreCallsWithoutPolling();
    const store = new RecordingStore();
    const out = await runNode(store, async (s) => {
      await Promise.all([s.put(['ns'], 'a', { n: 1 }), s.put(['ns'], 'b', { n: 2 })]);
      const [a, missing, found] = await Promise.all([s.get(['ns'], 'a'), s.get(['ns'], 'none'), s.search(['ns'])]);
      return { a: a?.value, missing, keys: found.map((item) => item.key).sort() };
    });
    expect(out).toEqual({ a: { n: 1 }, missing: null, keys: ['a', 'b'] });
    expect(store.batches.map((batch) => batch.length)).toEqual([2, 3]);
  });

  it('batches reach the store in the order they were made, each after the one before', async () => {
    batchStoreCallsWithoutPolling();
    const store = new RecordingStore();
    store.delayMs = 30;
    const out = await runNode(store, async (s) => {
      const first = s.put(['ns'], 'k', { n: 1 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = s.put(['ns'], 'k', { n: 2 });
      await Promise.all([first, second]);
      return (await s.get(['ns'], 'k'))?.value;
    });
    expect(out).toEqual({ n: 2 });
    expect(store.batches.map((batch) => batch.length)).toEqual([1, 1, 1]);
  });

  it("a failed batch rejects every call in it, and the store's next batch still goes", async () => {
    batchStoreCallsWithoutPolling();
    const store = new RecordingStore();
    const out = await runNode(store, async (s) => {
      store.failWith = new Error('redis is down');
      const failed = await Promise.allSettled([s.put(['ns'], 'a', { n: 1 }), s.get(['ns'], 'a')]);
      store.failWith = null;
      await s.put(['ns'], 'a', { n: 3 });
      return { failed: failed.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status)), after: (await s.get(['ns'], 'a'))?.value };
    });
    expect(out).toEqual({ failed: ['Error: redis is down', 'Error: redis is down'], after: { n: 3 } });
  });

  it('sets no timers while a run waits with nothing for the store (LangGraph alone sets one a millisecond)', async () => {
    batchStoreCallsWithoutPolling();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const timers = await runNode(new RecordingStore(), async () => {
        const before = spy.mock.calls.length;
        await new Promise((resolve) => setTimeout(resolve, 100));
        return spy.mock.calls.length - before;
      });
      // The node's own timer; polling would have set some 50 to 100 more.
      expect(timers).toBeLessThan(5);
    } finally {
      spy.mockRestore();
    }
  });

  it('stop() answers the calls still waiting for their turn', async () => {
    batchStoreCallsWithoutPolling();
    const store = new RecordingStore();
    const wrapper = new AsyncBatchedStore(store);
    wrapper.start();
    expect(wrapper.isRunning).toBe(true);
    const put = wrapper.put(['ns'], 'k', { n: 1 });
    expect(store.batches).toHaveLength(0);
    await wrapper.stop();
    expect(wrapper.isRunning).toBe(false);
    expect(store.batches).toHaveLength(1);
    await put;
    expect((await store.get(['ns'], 'k'))?.value).toEqual({ n: 1 });
  });
});
