// Keeping the conversation well-formed for the model: repairing tool calls a cancelled run left
// without answers, and stopping a model that repeats the same tool call.
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

export const INTERRUPTED_TOOL_RESULT = 'This tool call did not complete: the run was cancelled before it returned.';

/** Messages with every unanswered tool call followed by a synthetic error answer. */
export function repairToolCalls(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.getType() === 'tool') answered.add((m as ToolMessage).tool_call_id);
  const out: BaseMessage[] = [];
  for (const m of messages) {
    out.push(m);
    if (m.getType() !== 'ai') continue;
    for (const call of (m as AIMessage).tool_calls ?? []) {
      if (call.id && !answered.has(call.id)) {
        out.push(new ToolMessage({ content: INTERRUPTED_TOOL_RESULT, tool_call_id: call.id, name: call.name, status: 'error' }));
      }
    }
  }
  return out;
}

const callKey = (call: { name: string; args: unknown }) => `${call.name}:${JSON.stringify(call.args)}`;

/**
 * True when `response` repeats, for the `limit`-th time in this conversation, a tool call
 * with the same name and arguments: the model is looping.
 */
export function isRepeatedToolCall(history: readonly BaseMessage[], response: AIMessage, limit = 3): boolean {
  const calls = response.tool_calls ?? [];
  if (calls.length === 0) return false;
  const counts = new Map<string, number>();
  for (const m of history) {
    if (m.getType() !== 'ai') continue;
    for (const call of (m as AIMessage).tool_calls ?? []) counts.set(callKey(call), (counts.get(callKey(call)) ?? 0) + 1);
  }
  return calls.some((call) => (counts.get(callKey(call)) ?? 0) + 1 >= limit);
}

/** A rough token count (4 characters a token), enough to decide when to summarise. */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length;
  return Math.ceil(chars / 4);
}
