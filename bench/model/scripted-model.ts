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

function requestedDelay(request: ChatRequest): number | undefined {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== 'user' || typeof message.content !== 'string') continue;
    const match = /\[delay=(\d+)\]/.exec(message.content);
    return match ? Number(match[1]) : undefined;
  }
  return undefined;
}

export async function startScriptedModel(params: ModelParams): Promise<ScriptedOpenAI> {
  const content = fixedAnswer(params.tokens);
  const model = await startScriptedOpenAI((request) => ({ content, delayMs: requestedDelay(request) ?? params.delayMs }));
  // The server records every request; the bench never reads them, so keep the log empty.
  const requests = model.requests;
  const trim = setInterval(() => requests.splice(0, requests.length), 1000);
  trim.unref();
  return model;
}
