// LangGraph wraps a graph's store in an AsyncBatchedStore for each run (and each subgraph run),
// which batches the store calls a step makes. Its release polls its queue with `setTimeout(0)`
// for as long as the run lasts, whether or not a node ever touches the store: with 50 runs at
// once, that is some 50,000 empty timer turns a second, and it cost a tenth of Warren's run
// throughput in bench/ when every graph was given the store. This makes the batching wait for
// work instead: the first call of a turn schedules one flush, and every call made before it
// fires joins the same batch, as before.
//
// Why this patches a library's prototype (issue #29): LangGraph offers no public way around the
// wrapper. `PregelLoop.initialize` (@langchain/langgraph 1.7.3, dist/pregel/loop.js) does
// `new AsyncBatchedStore(params.store)` and `store.start()` whenever the run has a store, with no
// option to skip it; passing a store that is already an AsyncBatchedStore only gets it unwrapped
// and wrapped again (`extractStore`); and a node's `config.store` / `runtime.store` / `getStore()`
// is that wrapper or nothing (`extra.store ?? config.store` in dist/pregel/algo.js). The cost is
// the wrapper's own poll loop, so no BaseStore of Warren's can make it cheaper. (The Python
// LangGraph fixed the same busy loop upstream, langchain-ai/langgraph#3445; the JS one has not.)
//
// What it relies on, all checked by `batchedStoreShape` before anything is replaced (a mismatch
// leaves LangGraph's own polling, which is correct, only slower, and says so in the log):
// - the exact @langchain/langgraph-checkpoint version it was written against (PINNED_VERSION);
// - get/put/search/delete send every operation through the private `enqueueOperation(op)`;
// - the wrapped store is the instance's protected `store` field;
// - start()/stop()/isRunning are what Pregel calls (public methods, replaced here).
// It keeps its own state in a WeakMap, so it reads or writes none of the class's private fields.
// test/graphs/store-batching.test.ts fails the moment any of this changes: the installed versions
// of both packages, the shape above, that Pregel's wrapper is this patched class, that calls made
// together still reach the store as one batch, and that a waiting run sets no timers.
import { createRequire } from 'node:module';
import { AsyncBatchedStore, type BaseStore, type Operation } from '@langchain/langgraph-checkpoint';

/** The @langchain/langgraph-checkpoint whose AsyncBatchedStore this was written against. */
export const PINNED_VERSION = '1.2.2';

interface Pending {
  operation: Operation;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** Per wrapper: the calls waiting for the next flush, its timer, and the batches sent so far. */
interface Batching {
  pending: Pending[];
  timer: NodeJS.Timeout | null;
  sent: Promise<void>;
  started: boolean;
}

type Wrapper = AsyncBatchedStore & { store: BaseStore };

const state = new WeakMap<object, Batching>();

function batchingOf(self: object): Batching {
  let found = state.get(self);
  if (!found) {
    found = { pending: [], timer: null, sent: Promise.resolve(), started: false };
    state.set(self, found);
  }
  return found;
}

async function send(store: BaseStore, batch: Pending[]): Promise<void> {
  try {
    const results = await store.batch(batch.map((p) => p.operation));
    batch.forEach((p, i) => p.resolve(results[i]));
  } catch (err) {
    for (const p of batch) p.reject(err);
  }
}

/** Sends what is waiting, after the batches before it: they reach the store in the order made. */
function flush(self: Wrapper, batching: Batching): Promise<void> {
  if (batching.timer) clearTimeout(batching.timer);
  batching.timer = null;
  const batch = batching.pending;
  batching.pending = [];
  if (batch.length > 0) batching.sent = batching.sent.then(() => send(self.store, batch));
  return batching.sent;
}

const STORE_METHODS = ['get', 'put', 'search', 'delete'] as const;

/**
 * What in `target` (AsyncBatchedStore unless a test passes another class) differs from what the
 * patch relies on, or [] when it can be patched. `version` is the installed package's.
 */
export function batchedStoreShape(target: { prototype: object; new (store: BaseStore): object }, version: string): string[] {
  const problems: string[] = [];
  if (version !== PINNED_VERSION) problems.push(`@langchain/langgraph-checkpoint is ${version}, the patch was written against ${PINNED_VERSION}`);
  const proto = target.prototype as Record<string, unknown>;
  for (const name of ['enqueueOperation', 'start', 'stop', ...STORE_METHODS]) {
    if (typeof proto[name] !== 'function') problems.push(`AsyncBatchedStore.prototype.${name} is not a method`);
  }
  if (typeof Object.getOwnPropertyDescriptor(target.prototype, 'isRunning')?.get !== 'function') {
    problems.push('AsyncBatchedStore.prototype.isRunning is not a getter');
  }
  for (const name of STORE_METHODS) {
    const method = proto[name];
    if (typeof method === 'function' && !String(method).includes('this.enqueueOperation(')) {
      problems.push(`AsyncBatchedStore.prototype.${name} no longer calls this.enqueueOperation`);
    }
  }
  // The constructor only stores its argument (it starts nothing), so a probe is safe to build.
  const probe = {} as BaseStore;
  try {
    if ((new target(probe) as { store?: unknown }).store !== probe) problems.push('AsyncBatchedStore no longer keeps the wrapped store in `store`');
  } catch (err) {
    problems.push(`new AsyncBatchedStore(store) threw: ${String(err)}`);
  }
  return problems;
}

/** The installed @langchain/langgraph-checkpoint's version (the one this module imports). */
export function installedCheckpointVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('@langchain/langgraph-checkpoint/package.json') as { version: string }).version;
}

let outcome: string[] | undefined;

/**
 * Makes every AsyncBatchedStore in this process flush on demand instead of polling. Idempotent.
 * Returns what stopped it (and tells `log`), or [] once applied: LangGraph's polling then stays,
 * which is correct, only slower.
 */
export function batchStoreCallsWithoutPolling(log?: { warn(obj: object, msg: string): void }): string[] {
  if (outcome) return outcome;
  outcome = batchedStoreShape(AsyncBatchedStore, installedCheckpointVersion());
  if (outcome.length > 0) {
    log?.warn({ problems: outcome }, "LangGraph's store batching polls on every run: graphs/store-batching.ts no longer matches it");
    return outcome;
  }
  const proto = AsyncBatchedStore.prototype as unknown as Record<string, unknown>;
  Object.defineProperty(AsyncBatchedStore.prototype, 'isRunning', {
    configurable: true,
    get(this: object) {
      return batchingOf(this).started;
    },
  });
  proto.start = function (this: Wrapper) {
    batchingOf(this).started = true;
  };
  proto.stop = async function (this: Wrapper) {
    const batching = batchingOf(this);
    batching.started = false;
    // Calls still waiting for their turn go now: a run ends with every store call answered.
    await flush(this, batching);
  };
  proto.enqueueOperation = function (this: Wrapper, operation: Operation) {
    const batching = batchingOf(this);
    return new Promise((resolve, reject) => {
      batching.pending.push({ operation, resolve, reject });
      batching.timer ??= setTimeout(() => void flush(this, batching), 0);
    });
  };
  return outcome;
}
