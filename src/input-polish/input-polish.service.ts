// The polish button: the user's draft rewritten by the model in one call, queued as a model task
// for a worker (model clients live there), as follow-up suggestions are. Unlike suggestions, a
// failure is the user's to see (503, the draft unchanged), as DeerFlow answers it.
import type { FastifyBaseLogger } from 'fastify';
import type { InputPolishConfig } from '../config/app-config.schemas.js';
import { INPUT_POLISH_TASK_KIND, runModelTask, type TaskDispatcher } from '../queue/task-queue.js';
import { InputPolishDisabledError, InputPolishFailedError, InputTextEmptyError, InputTextTooLongError } from './input-polish.errors.js';
import type { InputPolish, InputPolishBody } from './input-polish.schemas.js';

export const INPUT_POLISH_TIMEOUT_MS = 30_000;

export interface InputPolishServiceDeps {
  tasks: Pick<TaskDispatcher, 'run'>;
  config: InputPolishConfig;
  timeoutMs?: number;
}

export function createInputPolishService(deps: InputPolishServiceDeps, log: FastifyBaseLogger) {
  const { config } = deps;
  return {
    async polish(body: InputPolishBody): Promise<InputPolish> {
      if (!config.enabled) throw new InputPolishDisabledError('Input polishing is disabled');
      const text = body.text.trim();
      if (text === '') throw new InputTextEmptyError('Input text is required');
      if (text.length > config.max_chars) throw new InputTextTooLongError(`Input text exceeds ${config.max_chars} characters`);
      let rewritten: string;
      try {
        const answer = await runModelTask(deps.tasks, {
          kind: INPUT_POLISH_TASK_KIND,
          threadId: body.thread_id ?? 'input-polish',
          request: { text, ...(body.locale ? { locale: body.locale } : {}) },
          modelName: config.model_name,
          timeoutMs: deps.timeoutMs ?? INPUT_POLISH_TIMEOUT_MS,
        });
        rewritten = answer.trim();
      } catch (err) {
        log.warn({ err, thread_id: body.thread_id }, 'input polish failed');
        throw new InputPolishFailedError('Failed to polish input', { cause: err });
      }
      if (rewritten === '') throw new InputPolishFailedError('Failed to polish input');
      return { rewritten_text: rewritten, changed: rewritten !== text };
    },
  };
}

export type InputPolishService = ReturnType<typeof createInputPolishService>;
