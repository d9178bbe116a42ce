// Settling a run: its final, fenced write (status, thread values, `error` and `end` in one
// step), then the thread's next run, the run's webhook and count, and a temporary thread's
// clean-up. The executor settles here when a run ends, and when a claim finds nothing to run.
import type { RunKwargs } from '../../src/queue/run-kwargs.js';
import type { RunFence, RunStatus, StoredRun, ThreadStatus } from '../../src/store/records.js';
import type { ExecutorDeps } from './executor-deps.js';

export interface Settlement {
  status: RunStatus | 'deleted';
  threadStatus: Exclude<ThreadStatus, 'busy'>;
  error?: { error: string; message: string };
}

export function cancelledSettlement(action: 'interrupt' | 'rollback'): Settlement {
  return action === 'rollback' ? { status: 'deleted', threadStatus: 'idle' } : { status: 'interrupted', threadStatus: 'idle' };
}

/**
 * An earlier attempt settled this run (its `end` went with it) and died before finishing the
 * job: make sure the thread's next run was dispatched (idempotent: the job id is the run id).
 */
export async function resumeSettled(deps: ExecutorDeps, threadId: string, runId: string) {
  const active = await deps.runs.active(threadId);
  if (active && active !== runId) await deps.dispatcher.dispatch(threadId, active);
  // Its webhook too (a no-op if it was queued): values from the thread, the error was in the stream.
  const webhook = webhookOf((await deps.runs.get(threadId, runId))?.kwargs);
  if (webhook) await queueWebhook(deps, threadId, runId, webhook, (await deps.threads.get(threadId))?.values ?? null, null);
}

const webhookOf = (kwargs: RunKwargs | undefined): string | undefined => (typeof kwargs?.webhook === 'string' ? kwargs.webhook : undefined);

async function queueWebhook(
  deps: ExecutorDeps,
  threadId: string,
  runId: string,
  url: string,
  values: Record<string, unknown> | null,
  error: { error: string; message: string } | null,
): Promise<void> {
  if (!deps.webhooks) return;
  await deps.webhooks.enqueue({ thread_id: threadId, run_id: runId, url, values, error }).catch((err: unknown) => {
    // The run is settled; only its notification is lost, and the log says so.
    deps.log.warn({ err, run_id: runId, thread_id: threadId }, 'could not queue the run webhook');
  });
}

/** Every write here is fenced: a worker that lost the run settles nothing (WARREN_FENCED). */
export async function settle(
  deps: ExecutorDeps,
  fence: RunFence,
  settlement: Settlement,
  state: { values?: Record<string, unknown> | null; interrupts?: Record<string, unknown> },
  run?: StoredRun,
  kwargs?: RunKwargs,
): Promise<void> {
  const { threadId, runId } = fence;
  if (settlement.status === 'deleted') {
    const before = run?.checkpoint_before ?? (await deps.runs.get(threadId, runId))?.checkpoint_before ?? null;
    await deps.checkpoints.rollBack(fence, before);
  }
  const next = await deps.runs.finish({
    fence,
    status: settlement.status,
    threadStatus: settlement.threadStatus,
    ...(state.values !== undefined ? { values: state.values } : {}),
    ...(state.interrupts !== undefined ? { interrupts: state.interrupts } : {}),
    ...(settlement.error ? { error: settlement.error } : {}),
    retentionSeconds: deps.settings.streamRetentionSeconds,
  });
  if (next) await deps.dispatcher.dispatch(threadId, next);
  const webhook = webhookOf(kwargs ?? (run ?? (deps.webhooks ? await deps.runs.get(threadId, runId) : null))?.kwargs);
  if (webhook && settlement.status !== 'deleted') await queueWebhook(deps, threadId, runId, webhook, state.values ?? null, settlement.error ?? null);
  await deps.countFinished?.(settlement.status === 'deleted' ? 'rolled_back' : settlement.status).catch((err: unknown) => {
    // A missed count costs /metrics one increment; the run is settled already.
    deps.log.warn({ err, run_id: runId, thread_id: threadId }, 'could not count the finished run');
  });
  if (run?.temporary && kwargs?.on_completion !== 'keep') {
    // The stream and run record stay joinable for the retention period, then expire.
    await deps.runs.expireAll(threadId, deps.settings.streamRetentionSeconds);
    await deps.threads.remove(threadId);
    // Whose the run was stays known as long as it can be joined, so no one else joins it.
    await deps.threads.expireOwner(threadId, deps.settings.streamRetentionSeconds);
    await deps.checkpoints.deleteThread(threadId);
  }
}
