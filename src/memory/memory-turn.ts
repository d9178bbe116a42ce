// The part of a finished run that memory learns from: the last user message and the agent's
// answers after it, read from the thread's values as the wire shows them. Tool calls, tool
// results and empty messages are left out (DeerFlow keeps only the user's inputs and the final
// answers), and long texts are cut, so one turn stays a few kilobytes in Redis.
import type { MemoryTurn } from './memory-turns.js';

const MAX_MESSAGE_CHARS = 8000;

interface WireMessage {
  type?: unknown;
  content?: unknown;
  tool_calls?: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      const p = part as { type?: unknown; text?: unknown } | null;
      return p?.type === 'text' && typeof p.text === 'string' ? p.text : '';
    })
    .join('');
}

/** The turn that ended with these values, or null when it has no user message and answer to learn from. */
export function turnFromValues(threadId: string, values: Record<string, unknown> | null | undefined, at: Date): MemoryTurn | null {
  const messages = Array.isArray(values?.messages) ? (values.messages as WireMessage[]) : [];
  const lastHuman = messages.findLastIndex((m) => m?.type === 'human');
  if (lastHuman === -1) return null;
  const turn: MemoryTurn['messages'] = [];
  for (const message of messages.slice(lastHuman)) {
    const text = textOf(message.content).trim().slice(0, MAX_MESSAGE_CHARS);
    if (text === '') continue;
    if (message.type === 'human') turn.push({ role: 'user', content: text });
    else if (message.type === 'ai' && !(Array.isArray(message.tool_calls) && message.tool_calls.length > 0)) turn.push({ role: 'assistant', content: text });
  }
  if (!turn.some((m) => m.role === 'assistant')) return null;
  return { thread_id: threadId, messages: turn, at: at.toISOString() };
}
