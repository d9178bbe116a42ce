// One run as a LangGraph client makes it: threads.create, then runs.stream with
// ["values", "messages-tuple"], timed from the moment the message is sent.
import { Client } from '@langchain/langgraph-sdk';

export interface RunTiming {
  ok: boolean;
  error?: string;
  /** threads.create round trip. */
  createMs: number;
  /** runs.stream call → first `messages` event with text. */
  ttftMs: number;
  /** runs.stream call → last event before the stream closed. */
  lastEventMs: number;
  /** runs.stream call → stream closed. */
  endMs: number;
  events: number;
}

/** The same client settings for both servers: no request queue in the client, no hidden retries. */
export function sdkClient(apiUrl: string, headers: Record<string, string> = {}): Client {
  return new Client({ apiUrl, apiKey: null, defaultHeaders: headers, callerOptions: { maxConcurrency: Infinity, maxRetries: 0 } });
}

/**
 * For background runs (runs.create). Warren answers POST /threads/{id}/runs with SSE unless the
 * request says `Accept: application/json`, and the SDK's runs.create does not say it, so a stock
 * client fails there with a JSON parse error. Both servers get this header, for symmetry.
 */
export const BACKGROUND_RUN_HEADERS = { accept: 'application/json' };

function hasText(data: unknown): boolean {
  const chunk = Array.isArray(data) ? (data[0] as { content?: unknown } | undefined) : undefined;
  return typeof chunk?.content === 'string' && chunk.content.length > 0;
}

/** `beforeRun`, when given, runs between threads.create and runs.stream (the soak uploads a file there), outside the timings. */
export async function timedRun(
  client: Client,
  assistantId: string,
  signal: AbortSignal,
  config?: Record<string, unknown>,
  beforeRun?: (threadId: string) => Promise<void>,
): Promise<RunTiming> {
  const t0 = performance.now();
  const timing: RunTiming = { ok: false, createMs: Number.NaN, ttftMs: Number.NaN, lastEventMs: Number.NaN, endMs: Number.NaN, events: 0 };
  try {
    const thread = await client.threads.create({ signal });
    timing.createMs = performance.now() - t0;
    await beforeRun?.(thread.thread_id);
    const t1 = performance.now();
    let sawEnd = false;
    for await (const part of client.runs.stream(thread.thread_id, assistantId, {
      input: { messages: [{ role: 'user', content: 'Say the fixed answer.' }] },
      streamMode: ['values', 'messages-tuple'],
      ...(config ? { config } : {}),
      signal,
    })) {
      const now = performance.now() - t1;
      timing.events++;
      if (part.event === 'error') throw new Error(`run error event: ${JSON.stringify(part.data).slice(0, 200)}`);
      if (Number.isNaN(timing.ttftMs) && part.event === 'messages' && hasText(part.data)) timing.ttftMs = now;
      if ((part.event as string) === 'end') sawEnd = true;
      else timing.lastEventMs = now;
    }
    timing.endMs = performance.now() - t1;
    timing.ok = !Number.isNaN(timing.ttftMs);
    if (!timing.ok) timing.error = `no token arrived (${timing.events} events${sawEnd ? ', end' : ''})`;
  } catch (err) {
    timing.error = err instanceof Error ? err.message : String(err);
  }
  return timing;
}
