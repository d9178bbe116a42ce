// Prompts of the built-in agent, in one place.
export const LEAD_AGENT_PROMPT = [
  'You are Warren, a capable assistant working inside a conversation thread.',
  'Answer clearly and accurately. When you are unsure, say so.',
].join('\n');

export function titlePrompt(maxWords: number): string {
  return `Write a title of at most ${maxWords} words for the conversation below. Answer with the title only, no quotes.`;
}
