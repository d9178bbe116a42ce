// Where a run's time to first token goes (Warren only). Clients loop as in the throughput
// workload, and each run's path is read off what a client can see: the run record's
// `created_at` (admitted), the response headers (queued: the API answers once the job is on the
// queue), and the Redis stream id of its first `metadata`, `values` and token events (the ms part
// is when the worker's append reached Redis: claimed and started, input checkpoints stored,
// first token produced), then the token's receipt. Redis and this process read the same clock.
// The anchor's stream ids are sequence numbers, so it has no equivalent.
import { summarize, type Summary } from '../lib/stats.ts';
import type { BenchServer } from '../servers/bench-server.ts';

export const FIRST_TOKEN_STAGES = ['admitted', 'queued', 'started', 'input stored', 'token appended', 'token received'] as const;
export type FirstTokenStage = (typeof FIRST_TOKEN_STAGES)[number];

export interface FirstTokenPoint {
  concurrency: number;
  runs: number;
  errors: number;
  runs_per_s: number;
  /** ms from the runs.stream request to each stage, over the runs that reached it. */
  stages: Record<FirstTokenStage, Summary>;
}

type Stamps = Partial<Record<FirstTokenStage, number>> & { sent: number; location: string };

const RUN_BODY = JSON.stringify({
  assistant_id: 'chat',
  input: { messages: [{ role: 'user', content: 'Say the fixed answer.' }] },
  stream_mode: ['values', 'messages-tuple'],
});

/** The ms part of a Redis stream id (`<ms>-<seq>`). */
const idMs = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** Which stage an SSE event marks, if any: the first of each kind counts. */
function stageOf(event: string, data: string): FirstTokenStage | null {
  if (event === 'metadata') return 'started';
  if (event === 'values') return 'input stored';
  // A token: a message chunk with text (the first chunk of a model call is empty).
  if (event === 'messages' && !data.startsWith('[{"content":"",')) return 'token appended';
  return null;
}

async function stampedRun(apiUrl: string, signal: AbortSignal): Promise<Stamps> {
  const thread = await fetch(`${apiUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal });
  const { thread_id: threadId } = (await thread.json()) as { thread_id: string };
  const stamps: Stamps = { sent: Date.now(), location: '' };
  const res = await fetch(`${apiUrl}/threads/${threadId}/runs/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: RUN_BODY,
    signal,
  });
  stamps.queued = Date.now();
  if (res.status !== 200 || !res.body) throw new Error(`runs.stream answered ${res.status}`);
  stamps.location = res.headers.get('content-location') ?? '';
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    const now = Date.now();
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = '';
      let id = '';
      let data = '';
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const value = line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
        if (line.startsWith('event:')) event = value;
        else if (line.startsWith('id:')) id = value;
        else if (line.startsWith('data:')) data += value;
      }
      const stage = stageOf(event, data);
      if (!stage || stamps[stage] !== undefined) continue;
      stamps[stage] = idMs(id);
      if (stage === 'token appended') stamps['token received'] = now;
    }
  }
  return stamps;
}

export async function measureFirstToken(server: BenchServer, concurrency: number, runs: number, deadlineMs: number): Promise<FirstTokenPoint> {
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new Error('level deadline')), deadlineMs);
  const done: Stamps[] = [];
  let started = 0;
  let errors = 0;
  const t0 = performance.now();
  const loop = async () => {
    while (started < runs && !abort.signal.aborted) {
      started++;
      try {
        done.push(await stampedRun(server.apiUrl, abort.signal));
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const wallS = (performance.now() - t0) / 1000;
  clearTimeout(deadline);
  // Read after the level, so that these reads do not load the runs measured.
  for (const stamps of done) {
    const run = (await (await fetch(`${server.apiUrl}${stamps.location}`)).json()) as { created_at?: string };
    if (run.created_at) stamps.admitted = Date.parse(run.created_at);
  }
  const stages = Object.fromEntries(
    FIRST_TOKEN_STAGES.map((stage) => [stage, summarize(done.flatMap((s) => (s[stage] === undefined ? [] : [(s[stage] as number) - s.sent])))]),
  ) as Record<FirstTokenStage, Summary>;
  return { concurrency, runs: done.length, errors: errors + (runs - started), runs_per_s: Number((done.length / wallS).toFixed(2)), stages };
}
