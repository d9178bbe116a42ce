// How DeerFlow's gateway twins of the run routes differ from /api/langgraph's, as options of the
// one set of run handlers (runtime/run-handlers.ts): the paths that point at a run, DeerFlow's
// RunCreateRequest over Warren's run-create body, and DeerFlow's answer to a failed /wait
// (backend/app/gateway/run_models.py and routers/thread_runs.py at f1f4af99b).
import { OptionUnsupportedError } from '../errors.js';
import type { RunProfile } from '../runtime/run-handlers.js';
import type { RunCreate } from '../runtime/runs.schemas.js';
import { runErrorMessage } from '../store/records.js';

/** DeerFlow points at a run under /api/threads (its SDK reads the run id from `Content-Location`). */
const runPath = (threadId: string, runId: string) => `/api/threads/${threadId}/runs/${runId}`;

/**
 * Options DeerFlow's RunCreateRequest declares only to refuse them when set (Warren's LangGraph
 * routes run them): a value other than null, or than the one it takes, is a 422 naming the option.
 */
const REFUSED_UNLESS: { [K in keyof RunCreate]?: (value: RunCreate[K]) => boolean } = {
  webhook: (value) => value === null,
  on_completion: (value) => value === null,
  after_seconds: (value) => value === null,
  feedback_keys: (value) => value === null,
  if_not_exists: (value) => value === 'create',
  // DeerFlow runs one run per thread at a time: no queue behind it.
  multitask_strategy: (value) => value !== 'enqueue',
};

/** The body as DeerFlow takes it: its refusals, then its default strategy, `reject`. */
export function deerflowRunBody(body: RunCreate): RunCreate {
  const refused = Object.entries(REFUSED_UNLESS)
    .filter(([field, allowed]) => {
      const value = body[field as keyof RunCreate];
      return value !== undefined && !(allowed as (v: unknown) => boolean)(value);
    })
    .map(([field]) => `'${field}'`);
  if (refused.length > 0) {
    const options = refused.length === 1 ? `Run option ${refused[0]} is` : `Run options ${refused.join(', ')} are`;
    throw new OptionUnsupportedError(`${options} not supported by DeerFlow's run routes; /api/langgraph's run routes take them.`);
  }
  return { ...body, multitask_strategy: body.multitask_strategy ?? 'reject' };
}

export const DEERFLOW_RUN_PROFILE: RunProfile = {
  locate: {
    created: ({ run }) => ({ 'Content-Location': runPath(run.thread_id, run.run_id), Location: `${runPath(run.thread_id, run.run_id)}/stream` }),
    existing: (threadId, runId) => ({ 'Content-Location': runPath(threadId, runId), Location: `${runPath(threadId, runId)}/stream` }),
  },
  body: deerflowRunBody,
  // DeerFlow answers the thread's state once the run ended, failed or not, when the thread has
  // one; `{status, error}` only when it has none.
  failedWait: async (error, threadValues) => JSON.stringify((await threadValues()) ?? { status: 'error', error: runErrorMessage(error) }),
};
