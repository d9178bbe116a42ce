// Cancelling a run from outside its worker: the record is flagged (or a queued run settled at
// once) and the workers are told over pub/sub. Used by run admission (multitask interrupt and
// rollback), run cancel routes and thread deletion.
import type { CancelMessage } from '../queue/control.js';
import type { CancelRunResult } from '../store/runs.js';
import type { Stores } from '../stores.js';

/** Tells the workers to stop a run; built in each composition root over the shared Redis client. */
export interface CancelSignals {
  publish(message: CancelMessage): Promise<void>;
}

export interface CancelDeps {
  stores: Pick<Stores, 'runs'>;
  cancelSignals: CancelSignals;
}

/**
 * Cancels a run: a queued one is settled at once; a dispatched or running one is flagged and its
 * worker told over pub/sub. Thread deletion uses it too, for runs that may already be gone.
 */
export async function signalCancel(deps: CancelDeps, threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
  const result = await deps.stores.runs.cancel(threadId, runId, action);
  if (result === 'signalled') await deps.cancelSignals.publish({ thread_id: threadId, run_id: runId, action });
  return result;
}
