// LangSmith tracing through its standard variables: LangChain's own tracer posts the run tree to
// LANGSMITH_ENDPOINT. Here that is a local server speaking LangSmith's ingest API (GET /info,
// POST /runs/multipart), so what a real LangSmith would receive is read back.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import { waitFor } from '../support/wait-for.js';

interface Posted {
  id: string;
  name: string;
  run_type: string;
  trace_id: string;
  parent_run_id?: string;
  session_name?: string;
}

const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
const runs: Posted[] = [];
let server: Server;
let agent: AgentStack;
const saved = { ...process.env };

/** The `post.<id>` parts of a multipart ingest body: each run's main JSON part. */
function postedRuns(body: string, contentType: string): Posted[] {
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
  if (!boundary) return [];
  return body
    .split(`--${boundary}`)
    .filter((part) => /name="post\.[0-9a-f-]+"/.test(part))
    .map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4).trim()) as Posted);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      if (req.url === '/runs/multipart') runs.push(...postedRuns(Buffer.concat(chunks).toString('utf8'), String(req.headers['content-type'])));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    LANGSMITH_TRACING: 'true',
    LANGSMITH_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    LANGSMITH_API_KEY: 'lsv2-test-key',
    LANGSMITH_PROJECT: 'warren-test-project',
  });
  agent = await startAgentStack();
});

afterAll(async () => {
  await agent?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  for (const name of ['LANGSMITH_TRACING', 'LANGSMITH_ENDPOINT', 'LANGSMITH_API_KEY', 'LANGSMITH_PROJECT']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

it('posts each run as a LangSmith trace: the graph run (its id is the run id) and its model calls', async () => {
  const { thread_id: threadId } = await agent.stack.client.threads.create();
  const events = await agent.run(threadId, 'hello');
  const runId = (events.find((e) => e.event === 'metadata')?.data as { run_id: string }).run_id;

  const trace = await waitFor(async () => {
    const inTrace = runs.filter((r) => r.trace_id === runId);
    return inTrace.some((r) => r.run_type === 'llm') && inTrace;
  }, 'the run tree at the LangSmith endpoint');
  const root = trace.find((r) => r.id === runId);
  expect(root).toMatchObject({ name: 'LangGraph', run_type: 'chain', session_name: 'warren-test-project' });
  expect(trace.find((r) => r.run_type === 'llm')).toMatchObject({ name: 'ChatOpenAI', session_name: 'warren-test-project' });
  expect(received.every((r) => r.headers['x-api-key'] === 'lsv2-test-key')).toBe(true);
  expect(received.some((r) => r.method === 'POST' && r.url === '/runs/multipart')).toBe(true);
});
