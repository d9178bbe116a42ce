// Follow-up suggestions: queued as a model task for any worker (model clients live there) and
// waited for briefly. A UI asks after every answer and must never break on it, so any failure (no
// worker in time, a model error, an unknown model) is logged and answered with an empty list.
// As DeerFlow does: none when `suggestions.enabled` is off, and never more than `max_suggestions`.
import type { FastifyBaseLogger } from 'fastify';
import type { SuggestionsConfig } from '../config/app-config.schemas.js';
import { runModelTask, SUGGESTIONS_TASK_KIND, type TaskDispatcher } from '../queue/task-queue.js';
import type { Suggestions, SuggestionsBody, SuggestionsSettings } from './suggestions.schemas.js';

export const SUGGESTIONS_TIMEOUT_MS = 15_000;

const asStrings = (text: string): string[] => {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
};

export interface SuggestionsServiceDeps {
  tasks: Pick<TaskDispatcher, 'run'>;
  config: SuggestionsConfig;
  timeoutMs?: number;
}

export function createSuggestionsService(deps: SuggestionsServiceDeps, log: FastifyBaseLogger) {
  return {
    settings: (): SuggestionsSettings => ({ enabled: deps.config.enabled, max_suggestions: deps.config.max_suggestions }),

    async suggest(threadId: string, body: SuggestionsBody): Promise<Suggestions> {
      if (!deps.config.enabled || body.messages.every((m) => m.content.trim() === '')) return { suggestions: [] };
      const n = Math.min(body.n, deps.config.max_suggestions);
      try {
        const text = await runModelTask(deps.tasks, {
          kind: SUGGESTIONS_TASK_KIND,
          threadId,
          request: { messages: body.messages, n },
          modelName: body.model_name,
          timeoutMs: deps.timeoutMs ?? SUGGESTIONS_TIMEOUT_MS,
        });
        return { suggestions: asStrings(text).slice(0, n) };
      } catch (err) {
        log.warn({ err, thread_id: threadId }, 'no follow-up suggestions');
        return { suggestions: [] };
      }
    },
  };
}

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;
