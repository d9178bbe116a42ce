// DeerFlow's run records over Warren's: the same runs /api/langgraph serves (runtime/runs.service.ts),
// with the token tallies each run's worker recorded (store/run-usage.ts) and the messages the
// history feed gives it (thread-messages.service.ts). Runs addressed by id alone (/api/runs/{id}/…)
// are found through the run → thread index; the record gate has already refused another user's.
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity.js';
import type { RunsService } from '../runtime/runs.service.js';
import type { RunCreate } from '../runtime/runs.schemas.js';
import type { Run } from '../store/records.js';
import type { RunUsage, RunUsageStore } from '../store/run-usage.js';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';
import type { DfRun } from './deerflow-runs.schemas.js';
import type { Feedback } from './feedback.schemas.js';
import { RunThreadIdInvalidError } from './gateway.errors.js';
import type { FeedbackService } from './feedback.service.js';
import type { MessagesQuery, RunMessages } from './thread-messages.schemas.js';
import type { ThreadMessagesService } from './thread-messages.service.js';

export interface DeerFlowRunsDeps {
  runs: Pick<RunsService, 'get' | 'list' | 'threadOf'>;
  usage: Pick<RunUsageStore, 'byRun'>;
  history: Pick<ThreadMessagesService, 'countsByRun' | 'ofRun'>;
  feedback: Pick<FeedbackService, 'list'>;
  /** A free id becomes the caller's; a taken one must be theirs (else 404). */
  claimThread: (identity: Identity, threadId: string) => Promise<void>;
}

/** How many runs one read of a thread's list takes (DeerFlow lists them all). */
const LIST_BATCH = 1000;

/** A run's tallies as DeerFlow's run row sums them. */
export function usageTotals(usage: RunUsage | undefined) {
  const models = Object.values(usage?.models ?? {});
  const input = models.reduce((sum, m) => sum + m.input_tokens, 0);
  const output = models.reduce((sum, m) => sum + m.output_tokens, 0);
  return {
    total_input_tokens: input,
    total_output_tokens: output,
    total_tokens: input + output,
    llm_call_count: models.reduce((sum, m) => sum + m.calls, 0),
    lead_agent_tokens: usage?.callers.lead_agent ?? 0,
    subagent_tokens: usage?.callers.subagent ?? 0,
    middleware_tokens: usage?.callers.middleware ?? 0,
  };
}

/** DeerFlow's RunResponse for a run. Warren records no stop reason apart from the status. */
export const toDfRun = (run: Run, usage: RunUsage | undefined, messages: number): DfRun => ({
  run_id: run.run_id,
  thread_id: run.thread_id,
  assistant_id: run.assistant_id,
  status: run.status,
  metadata: run.metadata,
  kwargs: run.kwargs,
  multitask_strategy: run.multitask_strategy,
  created_at: run.created_at,
  updated_at: run.updated_at,
  ...usageTotals(usage),
  message_count: messages,
  stop_reason: null,
});

const THREAD_ID = new RegExp(THREAD_ID_PATTERN);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function createDeerFlowRunsService(deps: DeerFlowRunsDeps) {
  const answer = async (threadId: string, runs: readonly Run[]): Promise<DfRun[]> => {
    const [usage, counts] = await Promise.all([deps.usage.byRun(threadId), deps.history.countsByRun(threadId)]);
    return runs.map((run) => toDfRun(run, usage.get(run.run_id), counts.get(run.run_id) ?? 0));
  };

  return {
    /** One run as DeerFlow answers it (also the answer to a background create). */
    async one(threadId: string, run: Run): Promise<DfRun> {
      return (await answer(threadId, [run]))[0] as DfRun;
    },

    async get(threadId: string, runId: string): Promise<DfRun> {
      return this.one(threadId, await deps.runs.get(threadId, runId));
    },

    /** Every run of the thread, newest first. */
    async list(threadId: string): Promise<DfRun[]> {
      const all: Run[] = [];
      for (let offset = 0; ; offset += LIST_BATCH) {
        const batch = await deps.runs.list(threadId, { limit: LIST_BATCH, offset });
        all.push(...batch);
        if (batch.length < LIST_BATCH) break;
      }
      all.sort((a, b) => b.created_at.localeCompare(a.created_at));
      return answer(threadId, all);
    },

    /**
     * /api/runs/stream and /wait: DeerFlow's stateless runs go to the thread that
     * `config.configurable.thread_id` names (made when missing), else to a new thread that stays.
     */
    async statelessTarget(body: RunCreate, identity: Identity): Promise<{ threadId: string; body: RunCreate }> {
      const configurable = isRecord(body.config) && isRecord(body.config.configurable) ? body.config.configurable : {};
      const named = configurable.thread_id;
      if (named === undefined || named === null) return { threadId: randomUUID(), body: { ...body, if_not_exists: 'create' } };
      if (typeof named !== 'string' || !THREAD_ID.test(named)) throw new RunThreadIdInvalidError(`config.configurable.thread_id: not a thread id`);
      await deps.claimThread(identity, named);
      return { threadId: named, body: { ...body, if_not_exists: 'create' } };
    },

    async runMessages(runId: string, query: MessagesQuery): Promise<RunMessages> {
      return deps.history.ofRun(await deps.runs.threadOf(runId), runId, query);
    },

    async runFeedback(runId: string, identity: Identity): Promise<Feedback[]> {
      return deps.feedback.list(await deps.runs.threadOf(runId), runId, identity);
    },
  };
}

export type DeerFlowRunsService = ReturnType<typeof createDeerFlowRunsService>;
