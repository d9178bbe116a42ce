// Runs the gateway's model tasks: one model call each, on the model the task names (or the first
// configured), without thinking, within the task's time. One table holds every kind; whatever is
// not a model task goes on to the sub-agent runner.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Static, TSchema } from 'typebox';
import type { GraphServices } from '../../graphs/graph-services.js';
import { polishInput } from '../../graphs/lead-agent/input-polish.js';
import { pickModel } from '../../graphs/lead-agent/run-options.js';
import { suggestFollowUps } from '../../graphs/lead-agent/suggestions.js';
import type { SubagentRunner } from '../../graphs/lead-agent/subagents.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { checkMessage } from '../../src/queue/message.js';
import {
  INPUT_POLISH_TASK_KIND,
  InputPolishRequestSchema,
  SUGGESTIONS_TASK_KIND,
  SuggestionRequestSchema,
  THREAD_COMPACT_TASK_KIND,
  ThreadCompactRequestSchema,
} from '../../src/queue/task-queue.js';
import { summarise } from '../../graphs/lead-agent/compaction.js';

/** Checks a task's request (its prompt, parsed) and gives back the call that answers it. */
type ModelTaskKind = (request: unknown) => (model: BaseChatModel, signal: AbortSignal) => Promise<string>;

/** Ties a kind's request schema to its runner, so each runner gets its request's own type. */
function kind<S extends TSchema>(schema: S, run: (model: BaseChatModel, request: Static<S>, signal: AbortSignal) => Promise<string>): ModelTaskKind {
  return (given) => {
    const request = checkMessage(schema, given, 'InvalidTaskJob', 'model task');
    return (model, signal) => run(model, request, signal);
  };
}

const MODEL_TASKS: Readonly<Record<string, ModelTaskKind>> = {
  [SUGGESTIONS_TASK_KIND]: kind(SuggestionRequestSchema, async (model, request, signal) => JSON.stringify(await suggestFollowUps(model, request, signal))),
  [INPUT_POLISH_TASK_KIND]: kind(InputPolishRequestSchema, (model, request, signal) => polishInput(model, request, signal)),
  [THREAD_COMPACT_TASK_KIND]: kind(ThreadCompactRequestSchema, (model, request, signal) => summarise(model, request.transcript, { signal })),
};

function parsePrompt(prompt: string): unknown {
  try {
    return JSON.parse(prompt);
  } catch {
    // The kind's check names the problem.
    return undefined;
  }
}

/** Sends model tasks (`suggestions`, `input-polish`, `thread-compact`) here and every other kind to the sub-agent runner. */
export function withModelTasks(appConfig: AppConfig, services: GraphServices, subagents: SubagentRunner): SubagentRunner {
  return async (task, options) => {
    const modelTask = Object.hasOwn(MODEL_TASKS, task.kind) ? MODEL_TASKS[task.kind] : undefined;
    if (!modelTask) return subagents(task, options);
    const answer = modelTask(parsePrompt(task.prompt));
    const model = await services.chatModel(pickModel(appConfig.models, task.configurable.model_name), { thinkingEnabled: false });
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return answer(model, signal);
  };
}
