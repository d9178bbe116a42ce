// deploy/ against running processes: 2 API processes and 2 workers from dist/, started with
// deploy/kubernetes's config.yaml (the scripted model in place of the hosted one). Every metric
// a Grafana panel or the KEDA ScaledObject queries is on the /metrics of an API or a worker, and
// the probe paths the Deployments name answer as the probes expect.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../src/cli/redis-process.js';
import { buildDist, ROOT, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from '../support/scripted-openai.js';
import { waitFor } from '../support/wait-for.js';
import { container, find, KUBERNETES_DIR, render } from './kustomize.js';

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'deploy', 'grafana', 'warren.json'), 'utf8')) as {
  panels: Panel[];
  templating: { list: { query?: { query: string } | string }[] };
};
const production = render('overlays/production');

/** The metric names a PromQL expression selects: every `name{` (all of ours select with labels) and label_values(name, …). */
const metricNames = (expr: string) => [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{|label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)/g)].map((m) => (m[1] ?? m[2]) as string);
const PROCESS_METRICS = ['nodejs_eventloop_lag_p99_seconds', 'process_resident_memory_bytes'];
/** The series names a scrape holds, from its sample lines. */
const seriesNames = (text: string) => new Set(text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)?.[0] ?? ''));

/** Reads a file first (a tool call, failing: the file is not there), then answers: model calls, tokens and a tool call on every run. */
function answer(request: ChatRequest): ScriptedReply {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: 'The file is not there.' };
  if (typeof last?.content === 'string' && last.content.includes('read the file')) {
    return { tool_calls: [{ name: 'read_file', args: { path: '/mnt/user-data/workspace/missing.txt' } }] };
  }
  return { content: 'A short answer.' };
}

let cluster: Cluster;
let llm: ScriptedOpenAI;
const metricsPorts: number[] = [];

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(answer);
  metricsPorts.push(await freePort(), await freePort());
  const deployed = parse(readFileSync(path.join(KUBERNETES_DIR, 'base', 'config.yaml'), 'utf8')) as Record<string, unknown>;
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: { ...deployed, models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }], memory: { enabled: false } },
    env: { LOG_LEVEL: 'info' },
    // Two workers on one host: a port each (in a pod, config.yaml's metrics.worker_port).
    workerEnv: (i) => ({ WARREN_WORKER_METRICS_PORT: String(metricsPorts[i]) }),
  });
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
});

const apiUrl = (i: number) => `http://127.0.0.1:${cluster.apis[i]?.port}`;
const scrape = async (url: string) => {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.text();
};

async function createThread(api: number): Promise<string> {
  const res = await fetch(`${apiUrl(api)}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as { thread_id: string }).thread_id;
}

/** Streams one run of the lead agent to its end through API `api`. */
async function streamRun(api: number, threadId: string, content: string): Promise<string> {
  const res = await fetch(`${apiUrl(api)}/api/langgraph/threads/${threadId}/runs/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: 'lead_agent', input: { messages: [{ role: 'user', content }] }, stream_mode: ['values', 'messages-tuple'] }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

const ranOn = (i: number) => cluster.workers[i]?.lines.some((line) => line.includes('"run started"'));

describe('deploy/ against running processes', () => {
  it('the probes the Deployments name answer as the probes expect, on every API and worker', async () => {
    // Workers are started without a wait: their metrics listener comes up first thing.
    for (const port of metricsPorts) await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null))?.ok, `the worker on ${port} to serve metrics`, 60_000);
    const api = container(find(production, 'Deployment', 'warren-api'));
    const worker = container(find(production, 'Deployment', 'warren-worker'));
    for (let i = 0; i < cluster.apis.length; i++) {
      for (const probe of [api.readinessProbe, api.livenessProbe, api.startupProbe]) {
        expect((await fetch(`${apiUrl(i)}${probe?.httpGet?.path}`)).status, probe?.httpGet?.path).toBe(200);
      }
    }
    for (const port of metricsPorts) expect((await fetch(`http://127.0.0.1:${port}${worker.livenessProbe?.httpGet?.path}`)).status).toBe(200);
  });

  it('every metric a Grafana panel or the KEDA ScaledObject queries is on /metrics of an API or a worker', async () => {
    // Runs on both workers, through both APIs, streamed: model calls, tokens, tool calls and relayed events on each.
    let n = 0;
    while (!(ranOn(0) && ranOn(1)) && n < 12) {
      const text = await streamRun(n % 2, await createThread(n % 2), `read the file ${n}`);
      expect(text).toContain('The file is not there.');
      n += 1;
    }
    expect(ranOn(0) && ranOn(1)).toBe(true);
    // The runs' ends are counted after their streams close: wait for them in the worker's metrics.
    const counted = ['warren_run_duration_seconds_bucket', 'warren_tool_call_duration_seconds_bucket'];
    let missing: string[] = [];
    await waitFor(async () => {
      const texts = await Promise.all(metricsPorts.map((p) => scrape(`http://127.0.0.1:${p}/metrics`)));
      missing = texts.flatMap((t, i) => counted.filter((name) => !seriesNames(t).has(name)).map((name) => `worker ${i}: ${name}`));
      return missing.length === 0;
    }, 'both workers to count their runs and tool calls', 60_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; missing ${missing.join(', ')}`);
    });

    const apis = await Promise.all(cluster.apis.map((_, i) => scrape(`${apiUrl(i)}/metrics`)));
    const workers = await Promise.all(metricsPorts.map((p) => scrape(`http://127.0.0.1:${p}/metrics`)));
    const onApi = apis.map(seriesNames);
    const onWorker = workers.map(seriesNames);
    const anywhere = (name: string) => [...onApi, ...onWorker].some((s) => s.has(name));

    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    const queried = new Set<string>();
    for (const panel of panels) {
      const names = (panel.targets ?? []).flatMap((t) => metricNames(t.expr));
      expect(names.length, `panel "${panel.title}" queries a metric`).toBeGreaterThan(0);
      for (const name of names) {
        expect(anywhere(name), `panel "${panel.title}": ${name}`).toBe(true);
        queried.add(name);
      }
    }
    for (const variable of dashboard.templating.list) {
      const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
      for (const name of metricNames(query ?? '')) expect(anywhere(name), `variable: ${name}`).toBe(true);
    }
    // Each process reports its own event-loop lag and RSS, as their panels show per process.
    for (const name of PROCESS_METRICS) for (const s of [...onApi, ...onWorker]) expect(s.has(name), name).toBe(true);
    // What the issue asks the dashboard to show, each by at least one panel.
    for (const name of [
      'warren_runs_finished_total',
      'warren_run_duration_seconds_bucket',
      'warren_queue_jobs',
      'warren_run_queue_wait_seconds_bucket',
      'warren_model_call_duration_seconds_bucket',
      'warren_model_tokens_total',
      'warren_tool_calls_total',
      'warren_http_requests_total',
      'warren_stream_relay_lag_seconds_bucket',
      ...PROCESS_METRICS,
    ]) {
      expect(queried.has(name), name).toBe(true);
    }

    const trigger = (find(production, 'ScaledObject', 'warren-worker').spec as { triggers: { metadata: { query: string } }[] }).triggers[0];
    const query = trigger?.metadata.query ?? '';
    const names = metricNames(query);
    expect(names).toEqual(['warren_queue_jobs']);
    for (const s of onApi) expect(s.has('warren_queue_jobs')).toBe(true);
    // The states the query sums are states the API reports.
    const states = /state=~"([^"]+)"/.exec(query)?.[1]?.split('|') ?? [];
    expect(states.length).toBeGreaterThan(0);
    for (const state of states) expect(apis[0]).toMatch(new RegExp(`^warren_queue_jobs\\{state="${state}"\\} \\d+$`, 'm'));
  }, 180_000);
});
