// Sums the token usage its runs recorded (each worker writes its own runs' usage to Redis), so
// any API replica answers the same.
import type { RunUsageStore } from '../store/run-usage.js';
import { ThreadNotFoundError } from '../store/store.errors.js';
import type { ThreadStore } from '../store/threads.js';
import type { ThreadTokenUsage } from './token-usage.schemas.js';

export interface TokenUsageDeps {
  threads: Pick<ThreadStore, 'get'>;
  usage: Pick<RunUsageStore, 'ofThread'>;
}

export function createTokenUsageService(deps: TokenUsageDeps) {
  return {
    async ofThread(threadId: string): Promise<ThreadTokenUsage> {
      if (!(await deps.threads.get(threadId))) throw new ThreadNotFoundError(`Thread ${threadId} not found`);
      const out: ThreadTokenUsage = {
        thread_id: threadId,
        total_tokens: 0,
        total_input_tokens: 0,
        total_output_tokens: 0,
        total_runs: 0,
        by_model: {},
        by_caller: { lead_agent: 0, subagent: 0, middleware: 0 },
      };
      for (const run of await deps.usage.ofThread(threadId)) {
        out.total_runs += 1;
        for (const [name, m] of Object.entries(run.models)) {
          const sum = (out.by_model[name] ??= { tokens: 0, input_tokens: 0, output_tokens: 0, calls: 0, runs: 0 });
          sum.input_tokens += m.input_tokens;
          sum.output_tokens += m.output_tokens;
          sum.tokens += m.input_tokens + m.output_tokens;
          sum.calls += m.calls;
          sum.runs += 1;
          out.total_input_tokens += m.input_tokens;
          out.total_output_tokens += m.output_tokens;
        }
        for (const caller of ['lead_agent', 'subagent', 'middleware'] as const) out.by_caller[caller] += run.callers[caller] ?? 0;
      }
      out.total_tokens = out.total_input_tokens + out.total_output_tokens;
      return out;
    },
  };
}

export type TokenUsageService = ReturnType<typeof createTokenUsageService>;
