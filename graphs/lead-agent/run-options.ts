// Per-run switches, from `config.configurable` or `context` (the executor merges both).
import type { RunnableConfig } from '@langchain/core/runnables';
import type { ModelConfig } from '../../src/config/app-config.schemas.js';
import { RunError } from '../../src/errors.js';

export interface RunOptions {
  modelName?: string;
  thinkingEnabled: boolean;
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  planMode: boolean;
  subagents: boolean;
  threadId: string;
  /** A custom agent (gateway `/api/agents`) whose persona, model and tool groups the run uses. */
  agentName?: string;
  /** DeerFlow's "new agent" chat: the lead agent designs `agentName` and saves it with setup_agent. */
  isBootstrap: boolean;
  /** The chat channel the run came from (DeerFlow withholds update_agent from `github`). */
  channelName?: string;
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
    ...(typeof c.agent_name === 'string' && c.agent_name !== '' ? { agentName: c.agent_name.toLowerCase() } : {}),
    isBootstrap: c.is_bootstrap === true,
    ...(typeof c.channel_name === 'string' && c.channel_name !== '' ? { channelName: c.channel_name } : {}),
  };
}

/** The model a run asked for (`model_name`), or the first configured one. */
export function pickModel(models: readonly ModelConfig[], name: unknown): ModelConfig {
  if (models.length === 0) throw new RunError('NoModelConfigured', 'No model is configured: add one under `models` in config.yaml.');
  if (typeof name === 'string' && name !== '') {
    const found = models.find((m) => m.name === name);
    if (!found) throw new RunError('UnknownModel', `model ${name} is not configured (available: ${models.map((m) => m.name).join(', ')})`);
    return found;
  }
  return models[0] as ModelConfig;
}
