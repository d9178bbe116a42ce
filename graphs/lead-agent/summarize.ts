// Keeps long conversations within the model's context: once the history passes the configured
// token count, the older turns are replaced by a summary and the recent ones kept verbatim.
import { HumanMessage, RemoveMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { estimateTokens } from './history.js';
import { cutIndex, SUMMARY_PREFIX, summarise, transcriptOf, viewOf } from './compaction.js';

export { SUMMARY_PREFIX };

/** The state update that summarises, or null when no summary is needed yet. */
export async function summarizeIfNeeded(
  model: BaseChatModel,
  messages: readonly BaseMessage[],
  settings: { triggerTokens: number; keepMessages: number },
  config: RunnableConfig,
): Promise<{ messages: BaseMessage[] } | null> {
  if (estimateTokens(messages) < settings.triggerTokens) return null;
  const cut = cutIndex(messages, settings.keepMessages, viewOf);
  if (cut < 2) return null;
  const summary = await summarise(model, transcriptOf(messages.slice(0, cut), viewOf), config);
  return {
    messages: [
      new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
      new HumanMessage({ content: `${SUMMARY_PREFIX}${summary}`, additional_kwargs: { summary: true } }),
      ...messages.slice(cut),
    ],
  };
}
