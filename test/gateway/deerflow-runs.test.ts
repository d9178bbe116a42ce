// DeerFlow's gateway twins of the LangGraph run routes (issue #30) through HTTP on 2 API replicas
// and 2 workers, the lead agent on the scripted model (its replies carry token usage) and the
// counter graph for runs long enough to cancel. Field names, types and statuses are DeerFlow's
// pydantic models' at f1f4af99b: RunResponse (thread_runs.py), the stateless runs (runs.py),
// AssistantResponse (assistants_compat.py) and the console's (console.py). Every route is scoped
// to the caller: bob is refused alice's threads and runs (404), and his console sees none of them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { parseSse } from '../support/sse.js';
import { testGraphs } from '../support/stack.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';
import { waitFor } from '../support/wait-for.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef', carol: 'carol-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;
const RUN_KEYS = [
  'assistant_id', 'created_at', 'kwargs', 'lead_agent_tokens', 'llm_call_count', 'message_count', 'metadata', 'middleware_tokens',
  'multitask_strategy', 'run_id', 'status', 'stop_reason', 'subagent_tokens', 'thread_id', 'total_input_tokens', 'total_output_tokens',
  'total_tokens', 'updated_at',
];
const ASSISTANT_KEYS = ['assistant_id', 'config', 'created_at', 'description', 'graph_id', 'metadata', 'name', 'updated_at', 'version'];

let llm: ScriptedOpenAI;
let cluster: Cluster;
let replicas: string[];
const { call, ok, next } = replicaApi(KEYS, () => replicas, '/api');

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(() => ({ content: 'scripted answer' }));
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      graphs: testGraphs('counter'),
      models: [
        {
          name: 'scripted',
          use: 'openai',
          model: 'scripted-1',
          base_url: llm.url,
          api_key: 'test-key',
          pricing: { currency: 'usd', input_per_million: 1_000_000, output_per_million: 2_000_000 },
        },
      ],
      auth: { api_keys: Object.entries(KEYS).map(([user, key]) => ({ key, user })) },
      title: { enabled: false },
      memory: { enabled: false },
      suggestions: { enabled: false },
    },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

const leadInput = (text: string) => ({
  assistant_id: 'lead_agent',
  input: { messages: [{ type: 'human', content: text }] },
  config: { configurable: { model_name: 'scripted' } },
});
/** A counter run that takes about `target` × 200 ms unless cancelled. */
const longCount = { assistant_id: 'counter', input: {}, config: { configurable: { target: 500, tick_ms: 200 } } };

/** A raw request on the next replica: status, headers and text (SSE bodies are not JSON). */
async function raw(who: Who, method: string, route: string, body?: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${next()}/api${route}`, {
    method,
    headers: { 'x-api-key': KEYS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectRun(run: any): void {
  expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
  expect(['pending', 'running', 'success', 'error', 'timeout', 'interrupted']).toContain(run.status);
  for (const key of RUN_KEYS.filter((k) => k.endsWith('_tokens') || k.endsWith('_count'))) expect(Number.isInteger(run[key])).toBe(true);
  expect(run.stop_reason).toBeNull();
}

const newThread = async (who: Who = 'alice'): Promise<string> => (await ok(who, 'POST', '/threads', {})).thread_id;
const settled = (who: Who, threadId: string, runId: string) =>
  waitFor(async () => {
    const run = await ok(who, 'GET', `/threads/${threadId}/runs/${runId}`);
    return ['pending', 'running'].includes(run.status) ? undefined : run;
  }, `run ${runId} to settle`, 60_000);
const running = (threadId: string, runId: string) =>
  waitFor(async () => ((await ok('alice', 'GET', `/threads/${threadId}/runs/${runId}`)).status === 'running' ? true : undefined), `run ${runId} to start`, 60_000);

describe('/api/threads/{id}/runs', () => {
  it("creates a background run answered with DeerFlow's RunResponse, its tokens and messages counted once it ends", async () => {
    const threadId = await newThread();
    const created = await raw('alice', 'POST', `/threads/${threadId}/runs`, leadInput('hello'));
    expect(created.status, created.text).toBe(200);
    const run = JSON.parse(created.text);
    expectRun(run);
    expect(run).toMatchObject({ thread_id: threadId, assistant_id: 'lead_agent', total_tokens: 0, message_count: 0 });
    expect(created.headers.get('content-location')).toBe(`/api/threads/${threadId}/runs/${run.run_id}`);
    const done = await settled('alice', threadId, run.run_id);
    expectRun(done);
    expect(done.status).toBe('success');
    expect(done.total_input_tokens).toBeGreaterThan(0);
    expect(done.total_tokens).toBe(done.total_input_tokens + done.total_output_tokens);
    expect(done.llm_call_count).toBeGreaterThan(0);
    expect(done.lead_agent_tokens).toBeGreaterThan(0);
    expect(done.message_count).toBe(2);
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/runs/${run.run_id}`), 404);
    expectDetail(await call('alice', 'GET', `/threads/${threadId}/runs/${randomUUID()}`), 404);
  });

  it('lists every run of the thread, newest first, and refuses another user (404)', async () => {
    const threadId = await newThread();
    await ok('alice', 'POST', `/threads/${threadId}/runs/wait`, leadInput('one'));
    await ok('alice', 'POST', `/threads/${threadId}/runs/wait`, leadInput('two'));
    const listed = await ok('alice', 'GET', `/threads/${threadId}/runs`);
    expect(listed).toHaveLength(2);
    listed.forEach(expectRun);
    expect(listed[0].created_at >= listed[1].created_at).toBe(true);
    expect(listed.map((r: any) => r.message_count)).toEqual([2, 2]);
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/runs`), 404);
    expectDetail(await call('bob', 'POST', `/threads/${threadId}/runs`, leadInput('mine now')), 404);
  });

  it('streams a new run as SSE with Content-Location, and waits for one with the final values', async () => {
    const threadId = await newThread();
    const streamed = await raw('alice', 'POST', `/threads/${threadId}/runs/stream`, { ...leadInput('stream me'), stream_mode: ['values'] });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.headers.get('content-location')).toMatch(new RegExp(`^/api/threads/${threadId}/runs/[0-9a-f-]+$`));
    const events = parseSse(streamed.text);
    expect(events[0]?.event).toBe('metadata');
    expect(events.at(-1)?.event).toBe('end');
    expect(events.some((e) => e.event === 'values')).toBe(true);
    const values = await ok('alice', 'POST', `/threads/${threadId}/runs/wait`, leadInput('wait for me'));
    expect(values.messages.map((m: any) => m.content)).toContain('wait for me');
  });

  it('joins a finished run as SSE (join and stream), replayed to its end', async () => {
    const threadId = await newThread();
    const run = await ok('alice', 'POST', `/threads/${threadId}/runs`, leadInput('join me'));
    await settled('alice', threadId, run.run_id);
    for (const route of [`/threads/${threadId}/runs/${run.run_id}/join`, `/threads/${threadId}/runs/${run.run_id}/stream`]) {
      const joined = await raw('alice', 'GET', route);
      expect(joined.status).toBe(200);
      const events = parseSse(joined.text);
      expect(events[0]?.event).toBe('metadata');
      expect(events.at(-1)?.event).toBe('end');
    }
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/runs/${run.run_id}/join`), 404);
  });

  it('cancels: 202, or 204 once settled with wait; the stop button (POST …/stream?action=) streams or answers 204', async () => {
    const threadId = await newThread();
    const first = await ok('alice', 'POST', `/threads/${threadId}/runs`, longCount);
    await running(threadId, first.run_id);
    expectDetail(await call('bob', 'POST', `/threads/${threadId}/runs/${first.run_id}/cancel`), 404);
    const waited = await raw('alice', 'POST', `/threads/${threadId}/runs/${first.run_id}/cancel?wait=true`);
    expect(waited.status).toBe(204);
    expect((await ok('alice', 'GET', `/threads/${threadId}/runs/${first.run_id}`)).status).toBe('interrupted');

    const second = await ok('alice', 'POST', `/threads/${threadId}/runs`, longCount);
    await running(threadId, second.run_id);
    const stopped = await raw('alice', 'POST', `/threads/${threadId}/runs/${second.run_id}/stream?action=interrupt`);
    expect(stopped.status).toBe(200);
    expect(parseSse(stopped.text).at(-1)?.event).toBe('end');
    expect((await settled('alice', threadId, second.run_id)).status).toBe('interrupted');

    const third = await ok('alice', 'POST', `/threads/${threadId}/runs`, longCount);
    await running(threadId, third.run_id);
    expect((await raw('alice', 'POST', `/threads/${threadId}/runs/${third.run_id}/stream?action=interrupt&wait=1`)).status).toBe(204);
    expect((await ok('alice', 'GET', `/threads/${threadId}/runs/${third.run_id}`)).status).toBe('interrupted');

    const fourth = await ok('alice', 'POST', `/threads/${threadId}/runs`, longCount);
    expect((await raw('alice', 'POST', `/threads/${threadId}/runs/${fourth.run_id}/cancel`)).status).toBe(202);
    expect((await settled('alice', threadId, fourth.run_id)).status).toBe('interrupted');
    expectDetail(await call('alice', 'POST', `/threads/${threadId}/runs/${fourth.run_id}/cancel?action=stop`), 422);
  });

  it('refuses a field Warren does not take and a bad stream mode (422)', async () => {
    const threadId = await newThread();
    expectDetail(await call('alice', 'POST', `/threads/${threadId}/runs`, { ...leadInput('x'), feedback_keys: ['a'] }), 422, /feedback_keys/);
    expectDetail(await call('alice', 'POST', `/threads/${threadId}/runs/stream`, { ...leadInput('x'), stream_mode: ['tools'] }), 422);
  });
});

/** A background run through /api/langgraph (its create answers JSON when asked for it). */
async function langgraphBackgroundRun(threadId: string, body: unknown): Promise<any> {
  const res = await fetch(`${next()}/api/langgraph/threads/${threadId}/runs`, {
    method: 'POST',
    headers: { 'x-api-key': KEYS.alice, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe("DeerFlow's RunCreateRequest: its default strategy, its refusals, its failed /wait (issue #30)", () => {
  it('refuses, with 422 naming them, the options DeerFlow declares only to refuse, on every run-create twin', async () => {
    const threadId = await newThread();
    const refused: [Record<string, unknown>, string][] = [
      [{ webhook: 'http://127.0.0.1:9/hook' }, "Run option 'webhook' is not supported by DeerFlow's run routes"],
      [{ after_seconds: 5 }, "Run option 'after_seconds' is not supported"],
      [{ on_completion: 'keep' }, "Run option 'on_completion' is not supported"],
      [{ if_not_exists: 'reject' }, "Run option 'if_not_exists' is not supported"],
      [{ multitask_strategy: 'enqueue' }, "Run option 'multitask_strategy' is not supported"],
      [{ webhook: 'http://127.0.0.1:9/hook', after_seconds: 5 }, "Run options 'webhook', 'after_seconds' are not supported"],
    ];
    for (const [extra, detail] of refused) {
      for (const route of [`/threads/${threadId}/runs`, `/threads/${threadId}/runs/stream`, `/threads/${threadId}/runs/wait`, '/runs/wait']) {
        const answer = await call('alice', 'POST', route, { ...leadInput('x'), ...extra });
        expectDetail(answer, 422);
        expect(answer.body.detail).toContain(detail);
      }
    }
    // What DeerFlow takes: the null placeholders, if_not_exists "create", its three strategies.
    const taken = await ok('alice', 'POST', `/threads/${threadId}/runs/wait`, {
      ...leadInput('placeholders'),
      webhook: null,
      after_seconds: null,
      feedback_keys: null,
      if_not_exists: 'create',
      multitask_strategy: 'interrupt',
    });
    expect(taken.messages.map((m: any) => m.content)).toContain('placeholders');
    // Nothing ran for the refusals.
    expect(await ok('alice', 'GET', `/threads/${threadId}/runs`)).toHaveLength(1);
    // /api/langgraph's run routes still take them.
    const lg = await langgraphBackgroundRun(threadId, { ...leadInput('queued'), multitask_strategy: 'enqueue', after_seconds: 1 });
    expect(lg.multitask_strategy).toBe('enqueue');
    await settled('alice', threadId, lg.run_id);
  });

  it("defaults multitask_strategy to reject: a second run while one runs is DeerFlow's 409, and the record says reject", async () => {
    const threadId = await newThread();
    const first = await ok('alice', 'POST', `/threads/${threadId}/runs`, longCount);
    expect(first.multitask_strategy).toBe('reject');
    await running(threadId, first.run_id);
    expectDetail(await call('alice', 'POST', `/threads/${threadId}/runs`, longCount), 409);
    expect(await ok('alice', 'GET', `/threads/${threadId}/runs`)).toHaveLength(1);
    // /api/langgraph keeps LangGraph's default, enqueue.
    const queued = await langgraphBackgroundRun(threadId, longCount);
    expect(queued.multitask_strategy).toBe('enqueue');
    for (const run of [first, queued]) await raw('alice', 'POST', `/threads/${threadId}/runs/${run.run_id}/cancel?wait=true`);
  });

  it("answers a failed /wait as DeerFlow: the thread's state when it has one; the console keeps the run's error", async () => {
    const threadId = await newThread('carol');
    const failing = { assistant_id: 'counter', input: { count: 0 }, config: { recursion_limit: 3, configurable: { target: 50 } } };
    const answer = await ok('carol', 'POST', `/threads/${threadId}/runs/wait`, failing);
    expect(answer.__error__).toBeUndefined();
    expect(answer.count).toBeGreaterThan(0);
    const [run] = await ok('carol', 'GET', `/threads/${threadId}/runs`);
    expect(run.status).toBe('error');
    // The error kept on the record stays out of DeerFlow's RunResponse, as out of LangGraph's Run.
    expectRun(run);
    expect(Object.keys(await ok('carol', 'GET', `/langgraph/threads/${threadId}/runs/${run.run_id}`))).not.toContain('error');
    // LangGraph's own route is unchanged: the error under __error__.
    const lg = await ok('carol', 'POST', `/langgraph/threads/${threadId}/runs/wait`, failing);
    expect(lg.__error__.error).toBe('GraphRecursionError');
    // The console shows the failed run's message (DeerFlow's `error`), and counts it as failed.
    const failed = (await ok('carol', 'GET', '/console/runs?status=error')).runs;
    expect(failed.map((r: any) => r.run_id)).toContain(run.run_id);
    for (const row of failed) expect(row.error).toBe(lg.__error__.message);
    expect((await ok('carol', 'GET', '/console/stats')).failed_runs).toBe(2);
  });
});

describe('/api/runs (stateless)', () => {
  it('runs on the thread config.configurable.thread_id names (made for the caller), else on a new thread', async () => {
    const threadId = randomUUID();
    const body = leadInput('stateless');
    const values = await ok('alice', 'POST', '/runs/wait', { ...body, config: { configurable: { ...body.config.configurable, thread_id: threadId } } });
    expect(values.messages.map((m: any) => m.content)).toContain('stateless');
    expect((await ok('alice', 'GET', `/threads/${threadId}`)).thread_id).toBe(threadId);
    expect(await ok('alice', 'GET', `/threads/${threadId}/runs`)).toHaveLength(1);
    expectDetail(await call('bob', 'GET', `/threads/${threadId}`), 404);
    expectDetail(await call('bob', 'POST', '/runs/wait', { ...body, config: { configurable: { thread_id: threadId } } }), 404);
    expectDetail(await call('alice', 'POST', '/runs/wait', { ...body, config: { configurable: { thread_id: '../x' } } }), 422, /thread_id/);

    const streamed = await raw('alice', 'POST', '/runs/stream', leadInput('no thread named'));
    expect(streamed.status).toBe(200);
    const location = streamed.headers.get('content-location') ?? '';
    const [, newThreadId, runId] = /^\/api\/threads\/([^/]+)\/runs\/([^/]+)$/.exec(location) ?? [];
    expect(parseSse(streamed.text).at(-1)?.event).toBe('end');
    // The new thread stays, as DeerFlow's does.
    expect((await settled('alice', newThreadId as string, runId as string)).status).toBe('success');
  });

  it("answers a run's messages and the caller's feedback by run id alone", async () => {
    const threadId = await newThread();
    const run = await ok('alice', 'POST', `/threads/${threadId}/runs`, leadInput('rate me'));
    await settled('alice', threadId, run.run_id);
    const messages = await ok('alice', 'GET', `/runs/${run.run_id}/messages`);
    expect(Object.keys(messages).sort()).toEqual(['data', 'has_more']);
    expect(messages.data.map((r: any) => r.event_type)).toEqual(['llm.human.input', 'llm.ai.response']);
    expect((await ok('alice', 'GET', `/runs/${run.run_id}/messages?limit=1`)).has_more).toBe(true);
    expect(await ok('alice', 'GET', `/runs/${run.run_id}/feedback`)).toEqual([]);
    await ok('alice', 'POST', `/threads/${threadId}/runs/${run.run_id}/feedback`, { rating: 1, comment: 'good' });
    const feedback = await ok('alice', 'GET', `/runs/${run.run_id}/feedback`);
    expect(feedback).toHaveLength(1);
    expect(feedback[0]).toMatchObject({ run_id: run.run_id, thread_id: threadId, rating: 1, comment: 'good' });
    expectDetail(await call('bob', 'GET', `/runs/${run.run_id}/messages`), 404);
    expectDetail(await call('bob', 'GET', `/runs/${run.run_id}/feedback`), 404);
    expectDetail(await call('alice', 'GET', `/runs/${randomUUID()}/feedback`), 404);
  });
});

describe('/api/assistants', () => {
  it("searches, gets, draws and describes assistants in DeerFlow's AssistantResponse, the caller's custom agents among them", async () => {
    expect((await call('alice', 'POST', '/agents', { name: `helper-${randomUUID().slice(0, 6)}`, description: 'helps' })).status).toBe(201);
    const found = await ok('alice', 'POST', '/assistants/search', {});
    for (const a of found) expect(Object.keys(a).sort()).toEqual(ASSISTANT_KEYS);
    expect(found.map((a: any) => a.assistant_id)).toContain('lead_agent');
    const agents = (await ok('alice', 'POST', '/assistants/search', { limit: 100 })).filter((a: any) => a.metadata.created_by === 'user');
    expect(agents.length).toBeGreaterThan(0);
    expect(agents[0]).toMatchObject({ graph_id: 'lead_agent', description: 'helps', version: 1 });
    const bobs = await ok('bob', 'POST', '/assistants/search', { limit: 100 });
    expect(bobs.map((a: any) => a.assistant_id)).not.toContain(agents[0].assistant_id);
    expect(await ok('alice', 'POST', '/assistants/search', { graph_id: 'counter' })).toEqual([expect.objectContaining({ assistant_id: 'counter' })]);

    const lead = await ok('alice', 'GET', '/assistants/lead_agent');
    expect(Object.keys(lead).sort()).toEqual(ASSISTANT_KEYS);
    expect(await ok('alice', 'GET', `/assistants/${agents[0].assistant_id}`)).toEqual(agents[0]);
    expectDetail(await call('bob', 'GET', `/assistants/${agents[0].assistant_id}`), 404);
    const graph = await ok('alice', 'GET', `/assistants/${agents[0].assistant_id}/graph`);
    expect(graph.graph_id).toBe('lead_agent');
    expect(Array.isArray(graph.nodes) && Array.isArray(graph.edges)).toBe(true);
    const schemas = await ok('alice', 'GET', '/assistants/lead_agent/schemas');
    expect(schemas.graph_id).toBe('lead_agent');
    for (const key of ['input_schema', 'output_schema', 'state_schema', 'config_schema']) expect(key in schemas).toBe(true);
    expectDetail(await call('alice', 'GET', '/assistants/no-such-assistant'), 404);
    expectDetail(await call('alice', 'GET', '/assistants/no-such-assistant/schemas'), 404);
    expectDetail(await call('alice', 'POST', '/assistants/search', { limit: 0 }), 422);
    expectDetail(await call('alice', 'POST', '/assistants/search', { owner: 'x' }), 422, /owner/);
  });
});

describe('/api/console', () => {
  it("counts, lists and sums the caller's runs only, with spend from the models' pricing", async () => {
    const threadId = await newThread('bob');
    const run = await ok('bob', 'POST', `/threads/${threadId}/runs`, leadInput('console'));
    await settled('bob', threadId, run.run_id);
    const done = await ok('bob', 'GET', `/threads/${threadId}/runs/${run.run_id}`);

    const stats = await ok('bob', 'GET', '/console/stats');
    expect(Object.keys(stats).sort()).toEqual(['active_runs', 'currency', 'failed_runs', 'total_agents', 'total_cost', 'total_runs', 'total_threads', 'total_tokens']);
    expect(stats).toMatchObject({ total_runs: 1, active_runs: 0, failed_runs: 0, total_agents: 0, total_tokens: done.total_tokens, currency: 'USD' });
    expect(stats.total_threads).toBeGreaterThanOrEqual(1);
    // 1,000,000 per million input tokens and 2,000,000 per million output: one unit per input token, two per output token.
    expect(stats.total_cost).toBe(done.total_input_tokens + 2 * done.total_output_tokens);
    expect((await ok('alice', 'GET', '/console/stats')).total_runs).toBeGreaterThan(1);

    const page = await ok('bob', 'GET', '/console/runs?limit=1');
    expect(page.has_more).toBe(false);
    expect(page.runs).toHaveLength(1);
    expect(Object.keys(page.runs[0]).sort()).toEqual([
      'assistant_id', 'cost', 'created_at', 'duration_seconds', 'error', 'message_count', 'model_name', 'run_id', 'status', 'thread_id', 'thread_title',
      'total_tokens', 'updated_at',
    ]);
    expect(page.runs[0]).toMatchObject({ run_id: run.run_id, thread_id: threadId, status: 'success', model_name: 'scripted', message_count: 2, total_tokens: done.total_tokens, error: null });
    expect(page.runs[0].duration_seconds).toBeGreaterThanOrEqual(0);
    expect((await ok('bob', 'GET', '/console/runs?status=error')).runs).toEqual([]);
    const alicePage = await ok('alice', 'GET', '/console/runs?limit=2');
    expect(alicePage.has_more).toBe(true);
    expect(alicePage.runs.map((r: any) => r.run_id)).not.toContain(run.run_id);

    const usage = await ok('bob', 'GET', '/console/usage?days=3&tz_offset_minutes=120');
    expect(usage.days).toHaveLength(3);
    expect(usage.days.map((d: any) => Object.keys(d).sort())).toEqual(Array(3).fill(['cost', 'date', 'input_tokens', 'output_tokens', 'runs', 'total_tokens']));
    expect(usage.days.at(-1)).toMatchObject({ runs: 1, total_tokens: done.total_tokens, input_tokens: done.total_input_tokens });
    expect(usage).toMatchObject({ total_runs: 1, total_tokens: done.total_tokens, total_cost: stats.total_cost, currency: 'USD' });
    expect(Object.values(usage.by_model)).toEqual([expect.objectContaining({ tokens: done.total_tokens, runs: 1, input_tokens: done.total_input_tokens, cache_read_tokens: 0 })]);

    expectDetail(await call('bob', 'GET', '/console/runs?limit=101'), 422);
    expectDetail(await call('bob', 'GET', '/console/usage?days=91'), 422);
    expectDetail(await call('bob', 'GET', '/console/usage?tz_offset_minutes=900'), 422);
  });
});
