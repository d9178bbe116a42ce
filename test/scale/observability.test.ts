// Metrics, traces and token usage on a real deployment: 2 API processes and 2 workers from dist/,
// one Redis, the scripted model, and a local OTLP receiver for the traces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/redis-process.js';
import { isSubagentRequest } from '../support/agent-script.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startScriptedOpenAI, tokenize, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from '../support/scripted-openai.js';
import { waitFor } from '../support/wait-for.js';

let cluster: Cluster;
let llm: ScriptedOpenAI;
let otlp: OtlpReceiver;
const metricsPorts: number[] = [];
/** Output tokens the model server reported, per answer. */
const outputTokens: number[] = [];

/** Stateless, so it answers the same whichever worker asks: a plan asks for a tool first. */
function answer(request: ChatRequest): ScriptedReply {
  const system = request.messages[0]?.content;
  const last = request.messages.at(-1);
  let reply: ScriptedReply;
  if (typeof system === 'string' && system.startsWith('Write a title')) reply = { content: 'Observed thread' };
  else if (isSubagentRequest(request)) reply = { content: 'Sub-agent result here.' };
  else if (last?.role === 'tool') reply = { content: 'The plan is noted.' };
  else if (typeof last?.content === 'string' && last.content.includes('missing file')) {
    reply = { tool_calls: [{ name: 'read_file', args: { path: '/mnt/user-data/workspace/missing.txt' } }] };
  } else if (typeof last?.content === 'string' && last.content.includes('delegate')) {
    reply = { tool_calls: [{ name: 'task', args: { description: 'a part', prompt: 'Do a part', subagent_type: 'general-purpose' } }] };
  }
  else if (typeof last?.content === 'string' && last.content.includes('plan')) {
    reply = { tool_calls: [{ name: 'write_todos', args: { todos: [{ content: 'Outline', status: 'in_progress' }] } }] };
  } else reply = { content: 'Here is an answer of seven words.' };
  outputTokens.push(tokenize(reply.content ?? '').length);
  return reply;
}

const apiUrl = (i: number) => `http://127.0.0.1:${cluster.apis[i]?.port}`;
const json = async (res: Response) => {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
};

async function createThread(api: number): Promise<string> {
  return (await json(await fetch(`${apiUrl(api)}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))).thread_id as string;
}

/** One run to its end through API `api`; returns its run id (from the Content-Location header). */
async function runWait(api: number, threadId: string, content: string, configurable: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${apiUrl(api)}/api/langgraph/threads/${threadId}/runs/wait`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ assistant_id: 'lead_agent', input: { messages: [{ role: 'user', content }] }, config: { configurable: { model_name: 'scripted', ...configurable } } }),
  });
  await json(res);
  const location = res.headers.get('content-location') ?? '';
  const runId = /runs\/([^/?]+)/.exec(location)?.[1];
  if (!runId) throw new Error(`no run id in Content-Location "${location}"`);
  return runId;
}

/** Which worker executed the run, from its "run started" log line. */
const workerOf = (runId: string) =>
  cluster.workers.findIndex((w) => w.lines.some((line) => line.includes(runId) && line.includes('"run started"')));

const scrape = async (url: string) => (await fetch(url)).text();
const workerMetrics = (i: number) => scrape(`http://127.0.0.1:${metricsPorts[i]}/metrics`);
/** The value of one series (name with its labels exactly as rendered), 0 when absent. */
const valueOf = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1) ?? 0);

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(answer);
  otlp = await startOtlpReceiver();
  metricsPorts.push(await freePort(), await freePort());
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }],
      tracing: { endpoint: otlp.url },
    },
    // Info lines tell which worker ran a run; spans leave every 50 ms rather than every 5 s.
    env: { LOG_LEVEL: 'info', OTEL_BSP_SCHEDULE_DELAY: '50' },
    workerEnv: (i) => ({ WARREN_WORKER_METRICS_PORT: String(metricsPorts[i]) }),
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
  await otlp?.close();
});

describe('token usage', () => {
  let threadId: string;
  it("sums a thread's runs executed by both workers, the same through either API", async () => {
    threadId = await createThread(0);
    const seen = new Set<number>();
    let runs = 0;
    // Two workers blocked on the queue take turns; a few runs land on both.
    while (seen.size < 2 && runs < 12) {
      const runId = await runWait(runs % 2, threadId, `question ${runs}`);
      seen.add(await waitFor(async () => (workerOf(runId) >= 0 ? workerOf(runId) + 1 : null), `the worker of ${runId}`) - 1);
      runs += 1;
    }
    expect(seen.size).toBe(2);

    const calls = llm.requests.length;
    const expectedOutput = outputTokens.reduce((a, b) => a + b, 0);
    const usage = await json(await fetch(`${apiUrl(1)}/api/threads/${threadId}/token-usage`));
    expect(usage).toEqual({
      thread_id: threadId,
      total_input_tokens: 10 * calls,
      total_output_tokens: expectedOutput,
      total_tokens: 10 * calls + expectedOutput,
      total_runs: runs,
      by_model: { 'scripted-1': { tokens: 10 * calls + expectedOutput, input_tokens: 10 * calls, output_tokens: expectedOutput, calls, runs } },
      // The title call (first run only) is a helper's; every other call is the agent's.
      by_caller: { lead_agent: expect.any(Number), subagent: 0, middleware: 10 + tokenize('Observed thread').length },
    });
    expect(await json(await fetch(`${apiUrl(0)}/api/threads/${threadId}/token-usage`))).toEqual(usage);
  });

  it("counts a sub-agent's tokens, run by a task worker, with the run that asked for it", async () => {
    const delegating = await createThread(0);
    const before = llm.requests.length;
    await runWait(0, delegating, 'delegate this', { subagent_enabled: true });
    const subCalls = llm.requests.slice(before).filter(isSubagentRequest).length;
    expect(subCalls).toBe(1);
    const usage = await json(await fetch(`${apiUrl(1)}/api/threads/${delegating}/token-usage`));
    expect(usage.by_caller).toEqual({ lead_agent: 2 * 10 + tokenize('The plan is noted.').length, subagent: 10 + tokenize('Sub-agent result here.').length, middleware: 10 + tokenize('Observed thread').length });
    expect(usage.total_runs).toBe(1);
  });

  it('answers 404 for a thread that does not exist', async () => {
    const res = await fetch(`${apiUrl(0)}/api/threads/00000000-0000-4000-8000-000000000000/token-usage`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/not found/);
  });
});

describe('traces', () => {
  it('follow one request through enqueue, the worker run, graph nodes, the model call and the tool call', async () => {
    const threadId = await createThread(1);
    // The client's own trace goes on through the request (plan mode gives the agent write_todos).
    const clientTrace = { traceId: 'a1'.repeat(16), spanId: 'b2'.repeat(8) };
    await runWait(1, threadId, 'make a plan', { is_plan_mode: true }, { traceparent: `00-${clientTrace.traceId}-${clientTrace.spanId}-01` });
    const spans = await waitFor(async () => {
      const tool = otlp.spans.find((s) => s.name === 'execute_tool write_todos');
      const trace = tool && otlp.spans.filter((s) => s.traceId === tool.traceId);
      // The run's span ends once the run has settled, the request's once its answer is sent.
      return trace?.some((s) => s.name.startsWith('run ')) && trace.some((s) => s.name.startsWith('POST ')) && trace;
    }, 'the whole trace at the receiver');
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan | undefined) => (s?.parentSpanId ? byId.get(s.parentSpanId) : undefined);
    const request = spans.find((s) => s.name === 'POST /api/langgraph/threads/:thread_id/runs/wait');
    const enqueue = spans.find((s) => s.name.startsWith('enqueue '));
    const run = spans.find((s) => s.name.startsWith('run '));
    const tool = spans.find((s) => s.name === 'execute_tool write_todos');
    const chats = spans.filter((s) => s.name === 'chat scripted-1');

    expect(request?.service).toBe('warren-api');
    expect(request?.traceId).toBe(clientTrace.traceId);
    expect(request?.parentSpanId).toBe(clientTrace.spanId);
    expect(parentOf(enqueue)).toBe(request);
    expect(parentOf(run)).toBe(enqueue);
    expect(run?.service).toBe('warren-worker');
    expect(parentOf(tool)?.name).toBe('node tools');
    expect(parentOf(parentOf(tool))).toBe(run);
    // The agent node's model calls: the tool call, then the answer after it.
    const agentChats = chats.filter((c) => parentOf(c)?.name === 'node agent');
    expect(agentChats).toHaveLength(2);
    for (const chat of agentChats) expect(parentOf(parentOf(chat))).toBe(run);
    expect(agentChats[0]?.attributes['gen_ai.usage.input_tokens']).toBe(10);
    expect(otlp.contentTypes).toEqual(new Set(['application/json']));
  });
});

describe('metrics', () => {
  it('each worker serves its own; summed, they count every model call, token and tool call', async () => {
    // A tool that fails (reading a file that is not there) is counted as an error.
    await runWait(0, await createThread(0), 'read the missing file');
    const texts = await Promise.all([0, 1].map(workerMetrics));
    for (const text of texts) {
      expect(valueOf(text, 'warren_worker_runs_total{status="success"}')).toBeGreaterThan(0);
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
      expect(text).toMatch(/^warren_run_queue_wait_seconds_count [1-9]\d*$/m);
    }
    const sum = (series: string) => texts.reduce((total, text) => total + valueOf(text, series), 0);
    expect(sum('warren_model_calls_total{model="scripted-1",outcome="ok"}')).toBe(llm.requests.length);
    expect(sum('warren_model_tokens_total{model="scripted-1",direction="input"}')).toBe(10 * llm.requests.length);
    expect(sum('warren_model_tokens_total{model="scripted-1",direction="output"}')).toBe(outputTokens.reduce((a, b) => a + b, 0));
    expect(sum('warren_tool_calls_total{tool="write_todos",outcome="ok"}')).toBe(1);
    expect(sum('warren_tool_calls_total{tool="read_file",outcome="error"}')).toBe(1);
    expect(sum('warren_tool_calls_total{tool="task",outcome="ok"}')).toBe(1);
    expect(sum('warren_run_duration_seconds_count{status="success"}')).toBe(sum('warren_worker_runs_total{status="success"}'));
  });

  it('each API process counts its own requests by route; the cluster-wide run counts agree', async () => {
    const texts = await Promise.all([0, 1].map((i) => scrape(`${apiUrl(i)}/metrics`)));
    for (const text of texts) {
      expect(valueOf(text, 'warren_http_requests_total{route="/api/langgraph/threads/:thread_id/runs/wait",method="POST",status="200"}')).toBeGreaterThan(0);
      expect(text).toMatch(/^warren_queue_jobs\{state="waiting"\} \d+$/m);
    }
    // Each worker counts a run in Redis just before its own tally: both settle to the same total.
    await waitFor(async () => {
      const workers = await Promise.all([0, 1].map(workerMetrics));
      const finished = workers.reduce((t, text) => t + valueOf(text, 'warren_worker_runs_total{status="success"}'), 0);
      return valueOf(await scrape(`${apiUrl(0)}/metrics`), 'warren_runs_finished_total{status="success"}') === finished;
    }, 'the cluster-wide count to match the workers\' sum');
  });

  it('a worker answers only GET /metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPorts[0]}/other`);
    expect(res.status).toBe(404);
  });
});
