// The memory as the lead agent's system prompt shows it: the user's context, their history, and
// the most confident facts, within `max_injection_tokens`. Tokens are estimated as characters / 4
// (no tokenizer: the budget is a bound on prompt growth, not an exact count); a line that would
// pass the budget is left out, and so are all after it.
import { isEmptyMemory, type MemoryDocument } from '../../src/memory/memory.js';

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

const SECTION_LABELS: [keyof MemoryDocument['user'] | keyof MemoryDocument['history'], string][] = [
  ['workContext', 'Work'],
  ['personalContext', 'Personal'],
  ['topOfMind', 'Top of mind'],
  ['recentMonths', 'Recent months'],
  ['earlierContext', 'Earlier'],
  ['longTermBackground', 'Background'],
];

const HEADING = '## Memory\nWhat you remember about the user from earlier conversations. Use it where it helps; do not recite it.';

/** The prompt section, or '' when there is nothing to remember or no room for it. */
export function memoryPromptSection(memory: MemoryDocument, maxTokens: number): string {
  if (isEmptyMemory(memory)) return '';
  const sections: Record<string, { summary: string }> = { ...memory.user, ...memory.history };
  const summaries = SECTION_LABELS.flatMap(([key, label]) => {
    const summary = sections[key]?.summary.trim();
    return summary ? [`- ${label}: ${summary}`] : [];
  });
  const facts = [...memory.facts].sort((a, b) => b.confidence - a.confidence).map((f) => `- [${f.category}] ${f.content}`);
  const candidates = [...(summaries.length > 0 ? ['Context:', ...summaries] : []), ...(facts.length > 0 ? ['Facts:', ...facts] : [])];
  const lines = [HEADING];
  let used = estimateTokens(HEADING);
  for (const line of candidates) {
    const cost = estimateTokens(`\n${line}`);
    if (used + cost > maxTokens) break;
    used += cost;
    lines.push(line);
  }
  // A heading whose first line did not fit goes too.
  const last = lines.at(-1);
  if (last === 'Context:' || last === 'Facts:') lines.pop();
  return lines.length > 1 ? lines.join('\n') : '';
}
