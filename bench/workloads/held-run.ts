// A run of the bench graph that is running but held at the model gate: clients can join it and
// wait, and nothing streams until the gate opens. Used by fan-out and idle connections.
import type { Client } from '@langchain/langgraph-sdk';
import type { Gate } from '../model/gate.ts';
import { withDelay, withTokens } from '../model/scripted-model.ts';
import { waitFor } from '../lib/wait.ts';

export interface HeldRun {
  threadId: string;
  runId: string;
}

/**
 * Starts `count` runs that wait at the gate; once it opens they stream at `delayMs` per token,
 * `tokens` of them when given (the model's default answer otherwise).
 */
export async function startHeldRuns(client: Client, gate: Gate, count: number, delayMs: number, tokens?: number): Promise<HeldRun[]> {
  const prompt = withDelay('Say the fixed answer.', delayMs);
  gate.hold();
  const before = gate.waiting();
  const held: HeldRun[] = [];
  for (let i = 0; i < count; i++) {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'chat', {
      input: { messages: [{ role: 'user', content: tokens === undefined ? prompt : withTokens(prompt, tokens) }] },
      streamMode: ['values', 'messages-tuple'],
      // The anchor hands each event of a non-resumable run to one joined client only (its
      // queue shifts items off); resumable runs are read by index, so every client gets all.
      streamResumable: true,
      config: { configurable: { gated: true } },
    });
    held.push({ threadId: thread.thread_id, runId: run.run_id });
  }
  // Running, not merely queued: every run is waiting at the gate for its first token.
  await waitFor(() => gate.waiting() >= before + count, `${count} runs to reach the model`, 60_000);
  return held;
}

export function joinUrl(apiUrl: string, run: HeldRun): string {
  return `${apiUrl}/threads/${run.threadId}/runs/${run.runId}/stream`;
}

/** `-1`: from the start on Warren; on the anchor it also selects the resumable (broadcast) read. */
export const JOIN_HEADERS = { 'last-event-id': '-1' };
