// The soak's load: runs spread over every API, in a fixed mix of what a deployment sees. A chat
// run read by its caller; a chat run started in the background and joined from another API; a
// lead-agent run after an upload to its thread; a lead-agent run alone. Each run uses a new
// thread, so anything the processes keep per thread or per run adds up over the soak.
import type { Client } from '@langchain/langgraph-sdk';
import { BACKGROUND_RUN_HEADERS, sdkClient, timedRun } from '../client/sdk-run.ts';

export const SOAK_KINDS = ['chat', 'chat-joined', 'lead-agent-upload', 'lead-agent'] as const;
export type SoakKind = (typeof SOAK_KINDS)[number];

export interface SoakTally {
  started: number;
  completed: number;
  errors: Record<SoakKind, number>;
  /** First few distinct error messages. */
  error_samples: string[];
}

interface ApiClients {
  baseUrl: string;
  client: Client;
  background: Client;
}

const PROMPT = { messages: [{ role: 'user', content: 'Say the fixed answer.' }] };
const STREAM_MODE: ('values' | 'messages-tuple')[] = ['values', 'messages-tuple'];

async function upload(baseUrl: string, threadId: string, n: number, signal: AbortSignal): Promise<void> {
  const form = new FormData();
  form.append('files', new Blob([`Soak note ${n}: the harbour opens at six.\n`], { type: 'text/plain' }), `note-${n}.txt`);
  const res = await fetch(`${baseUrl}/api/threads/${threadId}/uploads`, { method: 'POST', body: form, signal });
  if (!res.ok) throw new Error(`upload answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

/** Started on one API, read to its end through another, from its first event. */
async function joinedRun(starter: ApiClients, joiner: ApiClients, signal: AbortSignal): Promise<void> {
  const thread = await starter.client.threads.create({ signal });
  const run = await starter.background.runs.create(thread.thread_id, 'chat', { input: PROMPT, streamMode: STREAM_MODE, streamResumable: true, signal });
  let events = 0;
  for await (const part of joiner.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: '-1', signal })) {
    if (part.event === 'error') throw new Error(`joined run error event: ${JSON.stringify(part.data).slice(0, 200)}`);
    events++;
  }
  if (events === 0) throw new Error('the joined stream ended with no event');
}

async function oneRun(kind: SoakKind, own: ApiClients, other: ApiClients, n: number, signal: AbortSignal): Promise<void> {
  if (kind === 'chat-joined') return joinedRun(own, other, signal);
  const graph = kind === 'chat' ? 'chat' : 'lead_agent';
  const beforeRun = kind === 'lead-agent-upload' ? (threadId: string) => upload(own.baseUrl, threadId, n, signal) : undefined;
  const timing = await timedRun(own.client, graph, signal, undefined, beforeRun);
  if (!timing.ok) throw new Error(timing.error ?? 'run failed');
}

/**
 * `runs` runs, `concurrency` at a time; run n goes to API n mod the API count (a joined run is
 * read through the next one). Resolves when every run has ended or the signal aborted.
 */
export async function soakLoad(apiBaseUrls: readonly string[], runs: number, concurrency: number, signal: AbortSignal, onRunEnd: (tally: SoakTally) => void): Promise<SoakTally> {
  const apis: ApiClients[] = apiBaseUrls.map((baseUrl) => ({
    baseUrl,
    client: sdkClient(`${baseUrl}/api/langgraph`),
    background: sdkClient(`${baseUrl}/api/langgraph`, BACKGROUND_RUN_HEADERS),
  }));
  const tally: SoakTally = { started: 0, completed: 0, errors: { chat: 0, 'chat-joined': 0, 'lead-agent-upload': 0, 'lead-agent': 0 }, error_samples: [] };
  const loop = async () => {
    while (tally.started < runs && !signal.aborted) {
      const n = tally.started++;
      const kind = SOAK_KINDS[n % SOAK_KINDS.length] as SoakKind;
      const own = apis[n % apis.length] as ApiClients;
      const other = apis[(n + 1) % apis.length] as ApiClients;
      try {
        await oneRun(kind, own, other, n, signal);
        tally.completed++;
      } catch (err) {
        tally.errors[kind]++;
        const message = err instanceof Error ? err.message : String(err);
        if (tally.error_samples.length < 5 && !tally.error_samples.includes(message)) tally.error_samples.push(message);
      }
      onRunEnd(tally);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return tally;
}
