// The model behind Warren during the walk: the project's scripted OpenAI-compatible server (a
// hosted LLM cannot be reached from here), answering each kind of call Warren makes the way a
// real model would, so every page has something real to show.
import { startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from '../../../test/support/scripted-openai.ts';

export const ARTIFACT_PATH = '/mnt/user-data/outputs/e2e-report.md';
/** A user message containing this makes the agent write and present a file. */
export const ARTIFACT_WORD = 'artifact';
export const ANSWER_PREFIX = 'Warren answers:';
/** The answer to every side call that is not a title, suggestions or memory: input polish. */
export const POLISHED_TEXT = 'A polished, concise text.';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}

/** Messages since the last user message: the tool calls of this turn so far. */
function turnOf(request: ChatRequest) {
  const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
  return { user: textOf(request.messages[lastUser]?.content), after: request.messages.slice(lastUser + 1) };
}

function replyTo(request: ChatRequest): ScriptedReply {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n');
  const tools = new Set((request.tools ?? []).map((t) => t.function.name));
  if (tools.size === 0) {
    // Side calls: title, follow-up suggestions, memory revision, input polish, summaries.
    if (/write a title/i.test(system)) return { content: 'E2E conversation' };
    if (/JSON array of strings/i.test(system)) return { content: '["Tell me more", "Show an example"]' };
    if (/long-term memory/i.test(system)) return { content: '{"user": {}, "history": {}, "facts": []}' };
    return { content: POLISHED_TEXT };
  }
  const { user, after } = turnOf(request);
  const toolsCalled = after.filter((m) => m.role === 'tool').length;
  if (tools.has('setup_agent') && /save this custom agent/i.test(user)) {
    if (toolsCalled === 0) {
      return { tool_calls: [{ name: 'setup_agent', args: { soul: '# E2E agent\n\nYou answer briefly and politely.', description: 'An agent made by the end-to-end walk' } }] };
    }
    return { content: 'Your agent is saved.' };
  }
  if (user.toLowerCase().includes(ARTIFACT_WORD)) {
    if (toolsCalled === 0) {
      return { tool_calls: [{ name: 'write_file', args: { description: 'write the report', path: ARTIFACT_PATH, content: '# E2E report\n\nWritten by the scripted model.\n' } }] };
    }
    if (toolsCalled === 1) return { tool_calls: [{ name: 'present_files', args: { filepaths: [ARTIFACT_PATH] } }] };
    return { content: 'The report is ready.', delayMs: 10 };
  }
  return { content: `${ANSWER_PREFIX} you said "${user.slice(0, 80)}". Here is a streamed reply in several words.`, delayMs: 15 };
}

export function startModel(): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI((request) => replyTo(request));
}
