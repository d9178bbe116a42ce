// Names a thread after its first exchange.
import { HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import { titlePrompt } from './prompts.js';

export function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part === 'string' ? part : part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

export function trimTitle(raw: string, maxWords: number, maxChars: number): string {
  const words = raw.replace(/["'`*#\n\r]/g, ' ').trim().split(/\s+/).filter(Boolean).slice(0, maxWords);
  let title = words.join(' ');
  if (title.length > maxChars) title = `${title.slice(0, Math.max(1, maxChars - 1)).trimEnd()}…`;
  return title || 'New conversation';
}

export async function generateTitle(
  model: BaseChatModel,
  messages: readonly BaseMessage[],
  limits: { maxWords: number; maxChars: number },
  config: RunnableConfig,
): Promise<string> {
  const first = messages.find((m) => m.getType() === 'human');
  const answer = messages.find((m) => m.getType() === 'ai' && textOf(m).trim() !== '');
  const exchange = [first && `User: ${textOf(first)}`, answer && `Assistant: ${textOf(answer)}`].filter(Boolean).join('\n').slice(0, 4000);
  // Tagged nostream: the title call is not part of the conversation's token stream.
  const reply = await model.invoke([new SystemMessage(titlePrompt(limits.maxWords)), new HumanMessage(exchange)], {
    ...config,
    tags: [...(config.tags ?? []), 'nostream'],
  });
  return trimTitle(textOf(reply), limits.maxWords, limits.maxChars);
}
