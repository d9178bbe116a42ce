// What every run's stream and thread must look like however its workers fared: one `metadata`
// per attempt, in increasing order; after a take-over, the state it resumed from; nothing the
// lost attempt streamed after the take-over; exactly one `end`, and nothing after it; and every
// acknowledged turn kept. With the chat runs the fault tests drive through each API replica.
import { Client } from '@langchain/langgraph-sdk';
import { expect } from 'vitest';
import type { Cluster } from './cluster.js';
import type { ChatRequest } from './scripted-openai.js';
import { collect, userInput, type SseEvent } from './sse.js';
import { waitFor } from './wait-for.js';

/** The id of a `messages` event's chunk (each model call streams its own). */
const chunkId = (event: SseEvent): string | undefined =>
  event.event === 'messages' ? (event.data as [{ id?: string }, unknown])[0]?.id : undefined;

/** Checks the invariants and returns the attempts the stream shows. */
export function expectOneWriterAtATime(events: SseEvent[], label: string): number[] {
  const attempts: number[] = [];
  const seenBefore = new Set<string>();
  let current = new Set<string>();
  events.forEach((event, index) => {
    if (event.event === 'metadata') {
      attempts.push((event.data as { attempt: number }).attempt);
      for (const id of current) seenBefore.add(id);
      current = new Set();
      if (attempts.length > 1) expect(events[index + 1]?.event, `${label}: a taken-over run first gives the state it resumes from`).toBe('values');
      return;
    }
    const id = chunkId(event);
    if (id === undefined) return;
    expect(seenBefore.has(id), `${label}: a chunk of a lost attempt's model call (${id}) came after the take-over`).toBe(false);
    current.add(id);
  });
  expect(events[0]?.event, `${label}: the first event`).toBe('metadata');
  expect([...attempts].sort((a, b) => a - b), `${label}: attempts in order, once each`).toEqual([...new Set(attempts)]);
  expect(events.filter((e) => e.event === 'end'), `${label}: one end`).toHaveLength(1);
  expect(events.at(-1)?.event, `${label}: end is last`).toBe('end');
  return attempts;
}

/** The text each model call streamed, by chunk id, in stream order: a gap or a repeat shows in it. */
export function streamedTexts(events: SseEvent[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const event of events) {
    const id = chunkId(event);
    if (id === undefined) continue;
    const content = (event.data as [{ content?: unknown }, unknown])[0]?.content;
    if (typeof content === 'string') texts.set(id, (texts.get(id) ?? '') + content);
  }
  return texts;
}

/** How many of the scripted model's requests each thread's question made (chatRuns asks `<question> on <thread>`). */
export function modelCallsPerThread(requests: readonly ChatRequest[], threads: readonly string[]): number[] {
  return threads.map(
    (threadId) => requests.filter((request) => request.messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.endsWith(` on ${threadId}`))).length,
  );
}

const MODES = ['messages-tuple', 'values'] as const;

/** Runs of the `chat` test graph on many threads, through each API replica in turn (not nginx: its rate limit is not the subject). */
export function chatRuns(cluster: Cluster) {
  const bases = cluster.apis.map((api) => `http://127.0.0.1:${api.port}/api/langgraph`);
  const clients = bases.map((apiUrl) => new Client({ apiUrl }));
  const jsonClients = bases.map((apiUrl) => new Client({ apiUrl, defaultHeaders: { Accept: 'application/json' } }));
  const client = (i: number) => clients[i % clients.length] as Client;

  return {
    client,
    threads: (count: number) => Promise.all(Array.from({ length: count }, async (_, i) => (await client(i).threads.create()).thread_id)),
    /** Starts one run per thread (in the background); returns their ids in thread order. */
    start: (threads: string[], question: string) =>
      Promise.all(
        threads.map(async (threadId, i) => {
          const json = jsonClients[i % jsonClients.length] as Client;
          const run = await json.runs.create(threadId, 'chat', { input: userInput(`${question} on ${threadId}`), streamMode: [...MODES], onDisconnect: 'continue' });
          return run.run_id;
        }),
      ),
    succeeded: (threads: string[], runs: string[], what: string, timeoutMs = 120_000) =>
      waitFor(
        async () => {
          const statuses = await Promise.all(threads.map(async (t, i) => (await client(i + 1).runs.get(t, runs[i] as string)).status));
          return statuses.every((s) => s === 'success');
        },
        what,
        timeoutMs,
      ),
    /** The run's whole stream, replayed from the start. */
    replay: (threadId: string, runId: string, i: number) => collect(client(i).runs.joinStream(threadId, runId, { lastEventId: '-1', streamMode: [...MODES] })),
    /** The thread's messages as `type:content`, with the scripted model's `Answer <n>: ` prefix cut. */
    turns: async (threadId: string, i: number) => {
      const state = await client(i).threads.getState<{ messages: { type: string; content: string }[] }>(threadId);
      return state.values.messages.map((m) => `${m.type}:${m.content.replace(/^Answer \d+: /, '')}`);
    },
  };
}
