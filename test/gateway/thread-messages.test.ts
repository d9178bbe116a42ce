// Conversation history (issue #30), on 2 API replicas and 2 workers: DeerFlow's message feeds
// (/api/threads/{id}/messages, /messages/page, /runs/{run_id}/messages, /events and
// /workspace-changes) with DeerFlow's field names, types and status codes, read from the
// threads' checkpoints; and the UI's "reopen a chat and page back" flow over 30 turns (60
// messages), checked as DeerFlow's useThreadHistory checks each page. Reads alternate replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { testGraphs } from '../support/stack.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;
const TURNS = 30;

let cluster: Cluster;
let replicas: string[];
let turn = 0;

interface Answer {
  status: number;
  json: unknown;
}

/** A request as `who`, on the next replica in turn. */
async function call(who: Who, method: string, path: string, body?: unknown): Promise<Answer> {
  const base = replicas[turn++ % replicas.length] as string;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': KEYS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : JSON.parse(text) };
}

async function ok<T>(who: Who, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await call(who, method, path, body);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json as T;
}

interface Row {
  thread_id: string;
  run_id: string | null;
  event_type: string;
  category: string;
  content: { type: string; id?: string; content: unknown; additional_kwargs?: Record<string, unknown> };
  metadata: Record<string, unknown>;
  seq: number;
  created_at: string;
  feedback?: unknown;
}
interface Page {
  data: Row[];
  has_more: boolean;
  next_before_seq: number | null;
}

/** What DeerFlow's useThreadHistory refuses: a page it would treat as broken. */
function assertUiAcceptsPage(page: Page) {
  expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_before_seq']);
  expect(typeof page.has_more).toBe('boolean');
  const seqs = page.data.map((row) => row.seq);
  for (const seq of seqs) expect(Number.isSafeInteger(seq) && seq >= 1).toBe(true);
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  if (page.has_more) expect(page.next_before_seq).toBe(seqs[0]);
  else expect(page.next_before_seq).toBeNull();
}

function assertRowShape(row: Row, threadId: string) {
  expect(Object.keys(row).filter((k) => k !== 'feedback').sort()).toEqual(
    ['category', 'content', 'created_at', 'event_type', 'metadata', 'run_id', 'seq', 'thread_id'].sort(),
  );
  expect(row.thread_id).toBe(threadId);
  expect(row.category).toBe('message');
  expect(['llm.human.input', 'llm.ai.response', 'llm.tool.result']).toContain(row.event_type);
  expect(typeof row.run_id).toBe('string');
  expect(typeof row.content.type).toBe('string');
  expect(typeof row.content.id).toBe('string');
  expect(row.metadata.caller).toBe('lead_agent');
  expect(Number.isNaN(Date.parse(row.created_at))).toBe(false);
}

let threadId: string;
/** Run ids, one per turn, in order. */
const runIds: string[] = [];

beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: { graphs: testGraphs('echo'), auth: { api_keys: [{ key: KEYS.alice, user: 'alice' }, { key: KEYS.bob, user: 'bob' }] } },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
  threadId = (await ok<{ thread_id: string }>('alice', 'POST', '/api/langgraph/threads', {})).thread_id;
  for (let i = 1; i <= TURNS; i++) {
    await ok('alice', 'POST', `/api/langgraph/threads/${threadId}/runs/wait`, {
      assistant_id: 'echo',
      input: { messages: [{ type: 'human', content: `turn ${i}` }] },
    });
  }
  type RunList = { run_id: string; status: string }[];
  const listed = await ok<RunList | { runs: RunList }>('alice', 'GET', `/api/langgraph/threads/${threadId}/runs?limit=100`);
  const runs = Array.isArray(listed) ? listed : listed.runs;
  expect(runs.map((r) => r.status)).toEqual(Array.from({ length: TURNS }, () => 'success'));
  // Newest first.
  runIds.push(...runs.map((r) => r.run_id).toReversed());
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

describe('reopen a chat and page back through 60 messages (issue #30)', () => {
  it('pages of 10 from the newest: seqs 60..1 once each, in order, has_more/next_before_seq as the UI checks', async () => {
    const pages: Page[] = [];
    let cursor: number | null = null;
    do {
      const query: string = cursor === null ? '?limit=10' : `?limit=10&before_seq=${cursor}`;
      const page: Page = await ok<Page>('alice', 'GET', `/api/threads/${threadId}/messages/page${query}`);
      assertUiAcceptsPage(page);
      pages.push(page);
      cursor = page.next_before_seq;
    } while (cursor !== null && pages.length < 20);

    expect(pages).toHaveLength(6);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, true, true, true, false]);
    const seqs = pages.toReversed().flatMap((p) => p.data.map((row) => row.seq));
    expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const rows = pages.toReversed().flatMap((p) => p.data);
    rows.forEach((row, i) => {
      assertRowShape(row, threadId);
      const turnNo = Math.floor(i / 2) + 1;
      // Each turn is its run's input then its answer, attributed to that run.
      expect(row.run_id).toBe(runIds[turnNo - 1]);
      if (i % 2 === 0) {
        expect(row.event_type).toBe('llm.human.input');
        expect(row.content.type).toBe('human');
        expect(row.content.content).toBe(`turn ${turnNo}`);
      } else {
        expect(row.event_type).toBe('llm.ai.response');
        expect(row.content.type).toBe('ai');
        expect(row.content.content).toBe(`echo: turn ${turnNo}`);
        expect(Number.isInteger(row.content.additional_kwargs?.turn_duration)).toBe(true);
      }
    });
    expect(new Set(rows.map((row) => row.content.id)).size).toBe(60);
  });

  it('a cursor past the end answers the newest rows; the oldest page ends the paging', async () => {
    const past = await ok<Page>('alice', 'GET', `/api/threads/${threadId}/messages/page?limit=5&before_seq=1000`);
    expect(past.data.map((r) => r.seq)).toEqual([56, 57, 58, 59, 60]);
    const oldest = await ok<Page>('alice', 'GET', `/api/threads/${threadId}/messages/page?limit=10&before_seq=4`);
    expect(oldest).toMatchObject({ has_more: false, next_before_seq: null });
    expect(oldest.data.map((r) => r.seq)).toEqual([1, 2, 3]);
    const none = await ok<Page>('alice', 'GET', `/api/threads/${threadId}/messages/page?before_seq=1`);
    expect(none).toEqual({ data: [], has_more: false, next_before_seq: null });
    // Default limit is DeerFlow's 50.
    const first = await ok<Page>('alice', 'GET', `/api/threads/${threadId}/messages/page`);
    expect(first.data).toHaveLength(50);
    expect(first.next_before_seq).toBe(11);
  });
});

describe('DeerFlow contract of the history routes', () => {
  it('GET /messages: a plain ascending list with feedback null; before_seq and after_seq cursors', async () => {
    const latest = await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/messages`);
    expect(latest.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 11));
    for (const row of latest) {
      assertRowShape(row, threadId);
      expect(row.feedback).toBeNull();
    }
    expect((await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/messages?after_seq=55`)).map((r) => r.seq)).toEqual([56, 57, 58, 59, 60]);
    expect((await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/messages?before_seq=4&limit=2`)).map((r) => r.seq)).toEqual([2, 3]);
    expect((await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/messages?after_seq=10&before_seq=14&limit=2`)).map((r) => r.seq)).toEqual([11, 12]);
  });

  it('GET /runs/{run_id}/messages: {data, has_more}, the run own rows only', async () => {
    const runId = runIds[4] as string;
    const all = await ok<{ data: Row[]; has_more: boolean }>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/messages`);
    expect(Object.keys(all).sort()).toEqual(['data', 'has_more']);
    expect(all.has_more).toBe(false);
    expect(all.data.map((r) => [r.seq, r.event_type, r.run_id])).toEqual([
      [9, 'llm.human.input', runId],
      [10, 'llm.ai.response', runId],
    ]);
    const last = await ok<{ data: Row[]; has_more: boolean }>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/messages?limit=1`);
    expect(last).toMatchObject({ has_more: true });
    expect(last.data.map((r) => r.seq)).toEqual([10]);
    const firstAfter = await ok<{ data: Row[]; has_more: boolean }>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/messages?limit=1&after_seq=1`);
    expect(firstAfter.data.map((r) => r.seq)).toEqual([9]);
  });

  it('GET /runs/{run_id}/events: the run message events, filtered by type, task and after_seq', async () => {
    const runId = runIds[0] as string;
    const events = await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/events`);
    expect(events.map((e) => [e.seq, e.event_type, e.category])).toEqual([
      [1, 'llm.human.input', 'message'],
      [2, 'llm.ai.response', 'message'],
    ]);
    expect((await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/events?event_types=llm.ai.response`)).map((e) => e.seq)).toEqual([2]);
    expect((await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/events?after_seq=1`)).map((e) => e.seq)).toEqual([2]);
    // What the subtask card asks for: Warren records no sub-agent steps.
    expect(await ok<Row[]>('alice', 'GET', `/api/threads/${threadId}/runs/${runId}/events?event_types=subagent.step&task_id=t1&limit=500`)).toEqual([]);
  });

  it('GET /runs/{run_id}/workspace-changes: DeerFlow empty shape', async () => {
    const changes = await ok<Record<string, unknown>>('alice', 'GET', `/api/threads/${threadId}/runs/${runIds[0]}/workspace-changes?include_files=true&include_diff=false`);
    expect(changes).toEqual({
      available: false,
      version: 1,
      summary: { created: 0, modified: 0, deleted: 0, symlink_created: 0, additions: 0, deletions: 0, truncated: false },
      files: [],
      limits: {},
    });
  });

  it('a thread without runs has an empty history', async () => {
    const empty = (await ok<{ thread_id: string }>('alice', 'POST', '/api/langgraph/threads', {})).thread_id;
    expect(await ok('alice', 'GET', `/api/threads/${empty}/messages/page`)).toEqual({ data: [], has_more: false, next_before_seq: null });
    expect(await ok('alice', 'GET', `/api/threads/${empty}/messages`)).toEqual([]);
  });

  it('bad input is a 4xx {detail}', async () => {
    const bad = [
      [`/api/threads/${threadId}/messages/page?after_seq=1`, 422, 'after_seq is not supported by this backward-only endpoint'],
      [`/api/threads/${threadId}/messages/page?limit=0`, 422],
      [`/api/threads/${threadId}/messages/page?limit=201`, 422],
      [`/api/threads/${threadId}/messages/page?before_seq=0`, 422],
      [`/api/threads/${threadId}/messages?before_seq=abc`, 422],
      [`/api/threads/${threadId}/runs/${runIds[0]}/events?limit=2001`, 422],
      [`/api/threads/${threadId}/runs/${runIds[0]}/workspace-changes?include_diff=maybe`, 422],
      [`/api/threads/bad.id/messages/page`, 422],
    ] as const;
    for (const [path, status, detail] of bad) {
      const answer = await call('alice', 'GET', path);
      expect(answer.status, path).toBe(status);
      const body = answer.json as { detail: unknown };
      expect(typeof body.detail, path).toBe('string');
      if (detail) expect(body.detail).toBe(detail);
    }
  });

  it("another user's thread or run, and ids nobody holds, answer 404", async () => {
    const paths = [
      `/api/threads/${threadId}/messages`,
      `/api/threads/${threadId}/messages/page`,
      `/api/threads/${threadId}/runs/${runIds[0]}/messages`,
      `/api/threads/${threadId}/runs/${runIds[0]}/events`,
      `/api/threads/${threadId}/runs/${runIds[0]}/workspace-changes`,
    ];
    for (const path of paths) {
      const answer = await call('bob', 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.json).toEqual({ detail: `Thread ${threadId} not found` });
    }
    const unknownThread = await call('alice', 'GET', '/api/threads/no-such-thread/messages/page');
    expect(unknownThread.status).toBe(404);
    expect(typeof (unknownThread.json as { detail: unknown }).detail).toBe('string');
    for (const route of ['messages', 'events', 'workspace-changes']) {
      const unknownRun = await call('alice', 'GET', `/api/threads/${threadId}/runs/no-such-run/${route}`);
      expect(unknownRun.status, route).toBe(404);
      expect(unknownRun.json).toEqual({ detail: 'Run no-such-run not found' });
    }
  });
});
