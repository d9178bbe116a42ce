// LangGraph wraps a graph's store in an AsyncBatchedStore for each run (and each subgraph run),
// which batches the store calls a step makes. Its release polls its queue with `setTimeout(0)`
// for as long as the run lasts, whether or not a node ever touches the store: with 50 runs at
// once, that is some 50,000 empty timer turns a second, and it cost a tenth of Warren's run
// throughput in bench/ when every graph was given the store. This makes the batching wait for
// work instead: the first call of a turn schedules one flush, and every call made before it
// fires joins the same batch, as before. Checked by the store tests through a hosted graph.
import { AsyncBatchedStore, type Operation } from '@langchain/langgraph-checkpoint';

interface Pending {
  operation: Operation;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** The fields of AsyncBatchedStore this replaces its polling with (see its source). */
interface BatchedStoreInternals {
  store: { batch(operations: Operation[]): Promise<unknown[]> };
  queue: Map<number, Pending>;
  nextKey: number;
  running: boolean;
  processingTask: Promise<void> | null;
  flushTimer?: NodeJS.Timeout | null;
}

async function flush(self: BatchedStoreInternals): Promise<void> {
  const batch = [...self.queue.values()];
  self.queue.clear();
  if (batch.length === 0) return;
  try {
    const results = await self.store.batch(batch.map((p) => p.operation));
    batch.forEach((p, i) => p.resolve(results[i]));
  } catch (err) {
    for (const p of batch) p.reject(err);
  }
}

let applied = false;

export function batchStoreCallsWithoutPolling(): void {
  if (applied) return;
  applied = true;
  const proto = AsyncBatchedStore.prototype as unknown as Record<string, unknown>;
  proto.start = function (this: BatchedStoreInternals) {
    this.running = true;
  };
  proto.stop = async function (this: BatchedStoreInternals) {
    this.running = false;
    await this.processingTask;
  };
  proto.enqueueOperation = function (this: BatchedStoreInternals, operation: Operation) {
    return new Promise((resolve, reject) => {
      this.queue.set(this.nextKey, { operation, resolve, reject });
      this.nextKey += 1;
      if (this.flushTimer) return;
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        const previous = this.processingTask ?? Promise.resolve();
        // Batches go to the store one after another, in the order they were made.
        this.processingTask = previous.then(() => flush(this));
      }, 0);
    });
  };
}
