// Runs a `suggestions` task: the gateway's follow-up questions, on the model the request names
// (or the first configured), without thinking, within the task's time.
import type { GraphServices } from '../../graphs/graph-services.js';
import { pickModel } from '../../graphs/lead-agent/run-options.js';
import { suggestFollowUps } from '../../graphs/lead-agent/suggestions.js';
import type { SubagentRunner } from '../../graphs/lead-agent/subagents.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { checkMessage } from '../../src/queue/message.js';
import { SUGGESTIONS_TASK_KIND, SuggestionRequestSchema } from '../../src/queue/task-queue.js';

function parsePrompt(prompt: string): unknown {
  try {
    return JSON.parse(prompt);
  } catch {
    // checkMessage below names the problem.
    return undefined;
  }
}

/** Sends `suggestions` tasks here and every other kind to the sub-agent runner. */
export function withSuggestions(appConfig: AppConfig, services: GraphServices, subagents: SubagentRunner): SubagentRunner {
  return async (task, options) => {
    if (task.kind !== SUGGESTIONS_TASK_KIND) return subagents(task, options);
    const request = checkMessage(SuggestionRequestSchema, parsePrompt(task.prompt), 'InvalidTaskJob', 'suggestions task');
    const model = await services.chatModel(pickModel(appConfig.models, task.configurable.model_name), { thinkingEnabled: false });
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return JSON.stringify(await suggestFollowUps(model, request, signal));
  };
}
