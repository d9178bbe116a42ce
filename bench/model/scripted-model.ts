// The fake LLM both servers call: the test suite's scripted OpenAI-compatible server, answering
// every chat request with the same fixed answer, one token per `delayMs`.
import { startScriptedOpenAI, tokenize, type ChatRequest, type ScriptedOpenAI } from '../../test/support/scripted-openai.ts';

export interface ModelParams {
  /** Tokens in the answer. */
  tokens: number;
  /** Delay before each streamed token. */
  delayMs: number;
}

/** An answer that the scripted server streams as exactly `tokens` pieces. */
export function fixedAnswer(tokens: number): string {
  const answer = Array.from({ length: tokens }, (_, i) => `${i === 0 ? '' : ' '}word${i}`).join('');
  if (tokenize(answer).length !== tokens) throw new Error(`fixed answer splits into ${tokenize(answer).length} tokens, not ${tokens}`);
  return answer;
}

/** A user message asking for another pace: `[delay=20]` streams at 20 ms per token. */
export const withDelay = (text: string, delayMs: number): string => `${text} [delay=${delayMs}]`;

/** A user message asking for a longer answer: `[tokens=3000]` streams 3,000 tokens. */
export const withTokens = (text: string, tokens: number): string => `${text} [tokens=${tokens}]`;

/** A `[name=N]` setting in the last user message. */
function requested(request: ChatRequest, name: 'delay' | 'tokens'): number | undefined {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== 'user' || typeof message.content !== 'string') continue;
    const match = new RegExp(`\\[${name}=(\\d+)\\]`).exec(message.content);
    return match ? Number(match[1]) : undefined;
  }
  return undefined;
}

export async function startScriptedModel(params: ModelParams): Promise<ScriptedOpenAI> {
  // A cache, one answer per length asked for: building a long one is not free.
  const answers = new Map<number, string>();
  const answer = (tokens: number): string => {
    let text = answers.get(tokens);
    if (text === undefined) {
      text = fixedAnswer(tokens);
      answers.set(tokens, text);
    }
    return text;
  };
  const model = await startScriptedOpenAI((request) => ({
    content: answer(requested(request, 'tokens') ?? params.tokens),
    delayMs: requested(request, 'delay') ?? params.delayMs,
  }));
  // The server records every request; the bench never reads them, so keep the log empty.
  const requests = model.requests;
  const trim = setInterval(() => requests.splice(0, requests.length), 1000);
  trim.unref();
  return model;
}
