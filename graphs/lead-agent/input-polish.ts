// DeerFlow's polish button (`POST /api/input-polish`): the user's draft rewritten to say the same
// thing more clearly. The API queues it as a model task (kind `input-polish`); a worker answers
// with the rewritten text alone.
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { InputPolishRequest } from '../../src/queue/task-queue.js';
import { textOf } from './title.js';

export const INPUT_POLISH_PROMPT_START = 'Rewrite the draft message';

/** The model's answer without reasoning blocks, a code fence or quotes around it. */
export function cleanPolished(raw: string): string {
  const text = raw.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(text);
  return (fenced?.[1] ?? text).trim();
}

export async function polishInput(model: BaseChatModel, request: InputPolishRequest, signal?: AbortSignal): Promise<string> {
  const system = [
    `${INPUT_POLISH_PROMPT_START} a user is about to send to an AI assistant, so that it is clear, well structured and free of mistakes.`,
    'Keep its meaning, intent, facts and requests; add nothing and answer nothing.',
    request.locale ? `Write it in the draft's own language (the user's locale is ${request.locale}).` : "Write it in the draft's own language.",
    'Answer with the rewritten message only, without quotes or comments.',
  ].join('\n');
  const reply = await model.invoke([new SystemMessage(system), new HumanMessage(request.text)], {
    tags: ['nostream'],
    ...(signal ? { signal } : {}),
  });
  return cleanPolished(textOf(reply));
}
