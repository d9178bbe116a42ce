// Follow-up suggestions: queued as a task for any worker (model clients live there) and waited
// for briefly. A UI asks after every answer and must never break on it, so any failure (no
// worker in time, a model error, an unknown model) is logged and answered with an empty list.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { SUGGESTIONS_TASK_KIND, type TaskDispatcher } from '../queue/task-queue.js';
import type { Suggestions, SuggestionsBody } from './suggestions.schemas.js';

export const SUGGESTIONS_TIMEOUT_MS = 15_000;

const asStrings = (text: string): string[] => {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
};

export function createSuggestionsService(deps: { tasks: Pick<TaskDispatcher, 'run'>; timeoutMs?: number }, log: FastifyBaseLogger) {
  return {
    async suggest(threadId: string, body: SuggestionsBody): Promise<Suggestions> {
      if (body.messages.every((m) => m.content.trim() === '')) return { suggestions: [] };
      try {
        const text = await deps.tasks.run(
          {
            thread_id: threadId,
            run_id: `suggestions-${randomUUID()}`,
            task_id: 'suggestions',
            kind: SUGGESTIONS_TASK_KIND,
            description: 'follow-up suggestions',
            prompt: JSON.stringify({ messages: body.messages, n: body.n }),
            configurable: body.model_name ? { model_name: body.model_name } : {},
          },
          { timeoutMs: deps.timeoutMs ?? SUGGESTIONS_TIMEOUT_MS },
        );
        return { suggestions: asStrings(text).slice(0, body.n) };
      } catch (err) {
        log.warn({ err, thread_id: threadId }, 'no follow-up suggestions');
        return { suggestions: [] };
      }
    },
  };
}

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;
