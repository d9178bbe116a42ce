// Per-run switches, from `config.configurable` or `context` (the executor merges both).
import type { RunnableConfig } from '@langchain/core/runnables';

export interface RunOptions {
  modelName?: string;
  thinkingEnabled: boolean;
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  planMode: boolean;
  subagents: boolean;
  threadId: string;
}

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

export function runOptions(config: RunnableConfig): RunOptions {
  const c = (config.configurable ?? {}) as Record<string, unknown>;
  const effort = typeof c.reasoning_effort === 'string' && EFFORTS.has(c.reasoning_effort) ? c.reasoning_effort : undefined;
  return {
    ...(typeof c.model_name === 'string' && c.model_name !== '' ? { modelName: c.model_name } : {}),
    thinkingEnabled: c.thinking_enabled === true,
    ...(effort ? { reasoningEffort: effort as RunOptions['reasoningEffort'] } : {}),
    planMode: c.is_plan_mode === true,
    subagents: c.subagent_enabled === true,
    threadId: String(c.thread_id ?? ''),
  };
}
