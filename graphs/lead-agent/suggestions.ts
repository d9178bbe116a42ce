// Follow-up questions for DeerFlow's UI (`POST /api/threads/{id}/suggestions`). The API queues
// the request as a task (kind `suggestions`), so that model clients stay in the workers; a worker
// answers with the questions as a JSON array.
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { SuggestionRequest } from '../../src/queue/task-queue.js';
import { textOf } from './title.js';

const ROLE_LABEL: Record<string, string> = { user: 'User', human: 'User', assistant: 'Assistant', ai: 'Assistant' };

/** The conversation as plain lines, newest last, within a bound the model can take. */
export function conversationText(messages: SuggestionRequest['messages'], maxChars = 8000): string {
  const lines = messages
    .map((m) => ({ label: ROLE_LABEL[m.role.trim().toLowerCase()] ?? m.role, text: m.content.trim() }))
    .filter((m) => m.text !== '')
    .map((m) => `${m.label}: ${m.text}`);
  return lines.join('\n').slice(-maxChars);
}

/** The strings of the first JSON array in `raw` (a fenced block or prose around it is fine). */
export function parseSuggestions(raw: string, n: number): string[] {
  const start = raw.indexOf('[');
  const end = raw.lastIndexOf(']');
  if (start === -1 || end <= start) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.slice(start, end + 1));
  } catch {
    // Not JSON: the model ignored the format, and the UI shows no suggestions.
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((item): item is string => typeof item === 'string')
    .map((item) => item.replace(/\s+/g, ' ').trim())
    .filter((item) => item !== '')
    .slice(0, n);
}

export async function suggestFollowUps(model: BaseChatModel, request: SuggestionRequest, signal?: AbortSignal): Promise<string[]> {
  const conversation = conversationText(request.messages);
  if (!conversation) return [];
  const { n } = request;
  const system = [
    `Suggest exactly ${n} short follow-up questions the user might ask next in this conversation.`,
    'Write them in the language the user writes in, each at most about 20 words, without numbering or Markdown.',
    'Answer with a JSON array of strings and nothing else.',
  ].join('\n');
  const reply = await model.invoke([new SystemMessage(system), new HumanMessage(`Conversation:\n${conversation}`)], {
    tags: ['nostream'],
    ...(signal ? { signal } : {}),
  });
  return parseSuggestions(textOf(reply), n);
}
