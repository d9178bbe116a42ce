// What the run executor is handed by the worker process: the stores, the graphs and the queue it
// settles into. Its own module so that the executor's steps (executor.ts, run-settle.ts) share it
// without importing each other.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { Logger } from 'pino';
import type { GraphRegistry } from '../../graphs/registry.js';
import type { RunDispatcher } from '../../src/queue/run-queue.js';
import type { WebhookDispatcher } from '../../src/webhooks/webhooks.js';
import type { RunFence } from '../../src/store/records.js';
import type { WorkerMetrics } from '../../src/metrics/worker-metrics.js';
import type { RunStreams } from '../../src/store/run-stream.js';
import type { RunUsageStore } from '../../src/store/run-usage.js';
import type { RunLeaseTimes, RunStore } from '../../src/store/runs.js';
import type { ThreadStore } from '../../src/store/threads.js';

/** The checkpoint operations a run needs: writing, and undoing it (where it started comes with its claim). */
export interface RunCheckpoints {
  /** The saver a run writes through: fenced by its attempt, kept on the thread's lineage. */
  saverFor(fence: RunFence, forkFrom: string | null): BaseCheckpointSaver;
  /** Deletes the run's checkpoints newer than `checkpointId` (all of them when null); fenced. */
  rollBack(fence: RunFence, checkpointId: string | null): Promise<void>;
  deleteThread(threadId: string): Promise<void>;
}

export interface ExecutorDeps {
  runs: RunStore;
  threads: ThreadStore;
  streams: RunStreams;
  graphs: GraphRegistry;
  checkpoints: RunCheckpoints;
  dispatcher: RunDispatcher;
  settings: {
    maxAttempts: number;
    defaultRecursionLimit: number;
    streamRetentionSeconds: number;
    /** How a claim holds its run: renewed by this worker (run-leases.ts), deferred to by others' claims. */
    lease?: RunLeaseTimes;
  };
  /** Counts a run's final status for /metrics. */
  countFinished?: (status: string) => Promise<void>;
  /** This worker's metrics (runs, model and tool calls); absent, runs are not observed. */
  metrics?: WorkerMetrics;
  /** Where a run's model calls record their token usage. */
  usage?: Pick<RunUsageStore, 'add'>;
  /** Queues the delivery of a run's `webhook` once it has settled. */
  webhooks?: Pick<WebhookDispatcher, 'enqueue'>;
  /** Notes a finished turn of the lead agent for the user's next memory update. */
  rememberTurn?: (threadId: string, values: Record<string, unknown>) => Promise<void>;
  log: Logger;
}
