// Compaction that keeps the visible history: older turns are summarised, and the summary is
// appended as one hidden message that names the last message it covers (`compacted_through`).
// The thread's messages stay as they were (DeerFlow's UI shows the whole chat after a compact);
// only what the model is sent changes: the latest summary, then the messages after the one it
// covers. Used by POST /api/threads/{id}/compact (on wire messages) and by the lead agent (on
// LangChain messages), so both read a message through a small view.
import { HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import { SUMMARY_PROMPT } from './prompts.js';
import { textOf } from './title.js';

export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';
/** The summary's kwarg naming the last message it covers. */
export const COMPACTED_THROUGH = 'compacted_through';
/** Characters of transcript one summary call reads (its newest part). */
export const MAX_TRANSCRIPT_CHARS = 200_000;

export interface MessageView {
  id: string | null;
  type: string | null;
  kwargs: Record<string, unknown>;
  text: string;
}

export const viewOf = (m: BaseMessage): MessageView => ({
  id: m.id ?? null,
  type: m.getType(),
  kwargs: m.additional_kwargs ?? {},
  text: textOf(m),
});

/** What the model is sent: the latest compaction summary first, then what follows the message it covers. */
export function activeContext<M>(messages: readonly M[], view: (m: M) => MessageView): M[] {
  const at = messages.findLastIndex((m) => typeof view(m).kwargs[COMPACTED_THROUGH] === 'string');
  if (at < 0) return [...messages];
  const summary = messages[at] as M;
  const through = messages.findIndex((m) => view(m).id === view(summary).kwargs[COMPACTED_THROUGH]);
  return [summary, ...messages.slice(through + 1).filter((m) => m !== summary)];
}

/** Where to cut so `keep` messages stay verbatim: never between an AI message's tool calls and their answers. */
export function cutIndex<M>(messages: readonly M[], keep: number, view: (m: M) => MessageView): number {
  let cut = Math.max(0, messages.length - keep);
  while (cut > 0 && view(messages[cut] as M).type === 'tool') cut -= 1;
  return cut;
}

/** The transcript a summary is written from, its newest part when long. */
export function transcriptOf<M>(messages: readonly M[], view: (m: M) => MessageView): string {
  return messages
    .map((m) => `${view(m).type}: ${view(m).text}`)
    .join('\n')
    .slice(-MAX_TRANSCRIPT_CHARS);
}

/** A rough token count (4 characters a token). */
export const estimateTextTokens = (messages: readonly MessageView[]): number => Math.ceil(messages.reduce((n, m) => n + m.text.length, 0) / 4);

/** One model call: the summary of a transcript. */
export async function summarise(model: BaseChatModel, transcript: string, config: RunnableConfig): Promise<string> {
  const reply = await model.invoke([new SystemMessage(SUMMARY_PROMPT), new HumanMessage(transcript)], { ...config, tags: [...(config.tags ?? []), 'nostream'] });
  return textOf(reply);
}
