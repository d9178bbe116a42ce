// Token usage, recorded with each run (its hash's `usage` field, so it lives and dies with the
// run) one model call at a time, and read back per thread.
import type { RedisClient } from './redis.js';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from './keys.js';
import { requireScript, type ScriptCaller } from './scripts.js';

/** Who made a model call: the agent itself, a sub-agent, or a helper step (title, summary). */
export const UsageCallerSchema = Type.Union([Type.Literal('lead_agent'), Type.Literal('subagent'), Type.Literal('middleware')]);
export type UsageCaller = Static<typeof UsageCallerSchema>;

const Count = Type.Number({ minimum: 0 });
export const ModelUsageSchema = Type.Object({ input_tokens: Count, output_tokens: Count, calls: Count });
export type ModelUsage = Static<typeof ModelUsageSchema>;

/** One run's tally, as add-run-usage-1.lua keeps it. */
export const RunUsageSchema = Type.Object({
  models: Type.Record(Type.String(), ModelUsageSchema),
  callers: Type.Record(Type.String(), Count),
});
export type RunUsage = Static<typeof RunUsageSchema>;

export interface ModelCallUsage {
  model: string;
  caller: UsageCaller;
  inputTokens: number;
  outputTokens: number;
}

export interface RunUsageStore {
  /** Adds one model call to the run's tally; a run that is gone gets nothing. */
  add(threadId: string, runId: string, call: ModelCallUsage): Promise<void>;
  /** The tallies of the thread's runs that recorded any usage. */
  ofThread(threadId: string): Promise<RunUsage[]>;
  /** The same tallies by run id. */
  byRun(threadId: string): Promise<Map<string, RunUsage>>;
}

export function createRunUsageStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): RunUsageStore {
  const addScript = requireScript(scripts, 'addRunUsage');
  const byRun = async (threadId: string): Promise<Map<string, RunUsage>> => {
    const out = new Map<string, RunUsage>();
    const ids = await redis.zrange(keys.threadRuns(threadId), 0, -1);
    if (ids.length === 0) return out;
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(keys.run(threadId, id), 'usage');
    const replies = (await pipeline.exec()) ?? [];
    ids.forEach((id, i) => {
      const raw = replies[i]?.[1];
      if (typeof raw !== 'string') return;
      const usage: unknown = JSON.parse(raw);
      // A tally this release cannot read is left out rather than failing the sum.
      if (Value.Check(RunUsageSchema, usage)) out.set(id, usage);
    });
    return out;
  };
  return {
    async add(threadId, runId, call) {
      await addScript([keys.run(threadId, runId)], [call.model, call.caller, Math.max(0, Math.round(call.inputTokens)), Math.max(0, Math.round(call.outputTokens))]);
    },
    async ofThread(threadId) {
      return [...(await byRun(threadId)).values()];
    },
    byRun,
  };
}
