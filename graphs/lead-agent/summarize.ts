// Keeps long conversations within the model's context: once the history passes the configured
// token count, the older turns are replaced by a summary and the recent ones kept verbatim.
import { HumanMessage, RemoveMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { estimateTokens } from './history.js';
import { SUMMARY_PROMPT } from './prompts.js';
import { textOf } from './title.js';

export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';

/** Where to cut: never between an AI message's tool calls and their answers. */
function cutIndex(messages: readonly BaseMessage[], keep: number): number {
  let cut = Math.max(0, messages.length - keep);
  while (cut > 0 && messages[cut]?.getType() === 'tool') cut -= 1;
  return cut;
}

/** The state update that summarises, or null when no summary is needed yet. */
export async function summarizeIfNeeded(
  model: BaseChatModel,
  messages: readonly BaseMessage[],
  settings: { triggerTokens: number; keepMessages: number },
  config: RunnableConfig,
): Promise<{ messages: BaseMessage[] } | null> {
  if (estimateTokens(messages) < settings.triggerTokens) return null;
  const cut = cutIndex(messages, settings.keepMessages);
  if (cut < 2) return null;
  const older = messages.slice(0, cut);
  const transcript = older.map((m) => `${m.getType()}: ${textOf(m)}`).join('\n').slice(-200_000);
  const reply = await model.invoke([new SystemMessage(SUMMARY_PROMPT), new HumanMessage(transcript)], {
    ...config,
    tags: [...(config.tags ?? []), 'nostream'],
  });
  return {
    messages: [
      new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
      new HumanMessage({ content: `${SUMMARY_PREFIX}${textOf(reply)}`, additional_kwargs: { summary: true } }),
      ...messages.slice(cut),
    ],
  };
}
