// The model's side of a memory update (a worker's memory job, workers/memory/memory-worker.ts): it reads
// the current memory and the turns since the last update, and answers a revision as JSON
// (src/memory/memory-revision.ts). The system prompt is ours; the output format is DeerFlow's.
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { MemoryDocument } from '../../src/memory/memory.js';
import type { MemoryTurn } from '../../src/memory/memory.js';
import { textOf } from './title.js';

/** The first words of the update's system prompt (tests route the scripted model by them). */
export const MEMORY_UPDATE_PROMPT_START = 'You keep the long-term memory';

const MEMORY_UPDATE_PROMPT = `${MEMORY_UPDATE_PROMPT_START} of an assistant about its user. You get the memory as it is and the conversations since it was last revised. Revise it with what is new and lasting about the user; leave out what only mattered in the moment (greetings, one-off requests, uploaded files).

The memory has:
- user.workContext: role, employer, projects, main technologies (two or three sentences);
- user.personalContext: languages, communication preferences, interests (one or two sentences);
- user.topOfMind: the several things the user is busy with lately (a short paragraph);
- history.recentMonths, history.earlierContext, history.longTermBackground: what they did recently, some months ago, and for long;
- facts: single statements, each with a category (preference, knowledge, context, behavior, goal, or correction when the user corrected the assistant) and a confidence: 0.9 to 1 when stated outright, 0.7 to 0.8 when clearly implied.

Answer with one JSON object and nothing else:
{"user": {"workContext": {"summary": "...", "shouldUpdate": true}, "personalContext": {...}, "topOfMind": {...}},
 "history": {"recentMonths": {...}, "earlierContext": {...}, "longTermBackground": {...}},
 "newFacts": [{"content": "...", "category": "preference", "confidence": 0.9, "source": "<thread id>"}],
 "factsToRemove": ["<id of a fact the conversations contradict or make obsolete>"]}
Set shouldUpdate to false (or leave a section out) when nothing about it changed. Do not repeat facts the memory has. Keep names, numbers and versions exact.`;

/** What the model is shown: the memory (facts with their ids) and each conversation with its thread id. */
export function memoryUpdateInput(memory: MemoryDocument, turns: readonly MemoryTurn[]): string {
  const conversations = turns.map((t) => {
    const lines = t.messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`);
    return `<conversation thread="${t.thread_id}">\n${lines.join('\n')}\n</conversation>`;
  });
  const { user, history, facts } = memory;
  const current = JSON.stringify({ user, history, facts: facts.map(({ id, content, category, confidence }) => ({ id, content, category, confidence })) }, null, 1);
  return `<memory>\n${current}\n</memory>\n\n${conversations.join('\n\n')}`;
}

/** The model's answer to the update prompt, as text (parsed by the caller, which may refuse it). */
export async function askForRevision(model: BaseChatModel, memory: MemoryDocument, turns: readonly MemoryTurn[], signal?: AbortSignal): Promise<string> {
  const reply = await model.invoke([new SystemMessage(MEMORY_UPDATE_PROMPT), new HumanMessage(memoryUpdateInput(memory, turns))], {
    tags: ['nostream'],
    ...(signal ? { signal } : {}),
  });
  return textOf(reply);
}
