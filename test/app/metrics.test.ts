// /metrics in Prometheus text format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'counter') } });
});
afterAll(async () => stack?.close());

const scrape = async () => {
  const res = await fetch(`${stack.url}/metrics`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

describe('/metrics', () => {
  it('shows queue depth, active runs, finished runs by status, relay lag and open connections', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    await collect(stack.client.runs.stream(id, 'echo', { input: userInput('m') }));
    // The worker counts a run just after its end reaches the stream.
    const body = await waitFor(async () => {
      const text = await scrape();
      const counted = /^warren_runs_finished_total\{status="success"\} [1-9]/m.test(text);
      // A request is counted once its response has closed, just after the client read its end.
      const streamed = /^warren_http_requests_total\{route="\/api\/langgraph\/threads\/:thread_id\/runs\/stream",method="POST",status="200"\} 1$/m.test(text);
      return counted && streamed && text;
    }, 'the finished run and its request to be counted');
    expect(body).toMatch(/^warren_queue_jobs\{state="waiting"\} \d+$/m);
    expect(body).toMatch(/^warren_active_runs \d+$/m);
    expect(body).toMatch(/^warren_runs_finished_total\{status="success"\} [1-9]\d*$/m);
    expect(body).toMatch(/^warren_stream_relay_lag_seconds_count [1-9]\d*$/m);
    expect(body).toMatch(/^warren_open_connections\{transport="sse"\} 0$/m);
    expect(body).toContain('# TYPE warren_conversion_duration_seconds histogram');
    // Process and event-loop metrics, and requests by route pattern (never the raw URL).
    expect(body).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(body).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(body).toMatch(/^warren_http_request_duration_seconds_count\{route="\/api\/langgraph\/threads",method="POST",status="200"\} \d+$/m);
  });

  it('labels URLs that match no route as unmatched', async () => {
    await fetch(`${stack.url}/no/such/${Date.now()}`);
    await waitFor(async () => /^warren_http_requests_total\{route="unmatched",method="GET",status="404"\} [1-9]\d*$/m.test(await scrape()), 'the 404 to be counted');
  });

  it('counts an open SSE connection while a run streams', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const stream = stack.client.runs.stream(id, 'counter', {
      input: { count: 0 },
      streamMode: ['custom'],
      config: { configurable: { target: 10, tick_ms: 50 } },
    });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    expect(await scrape()).toMatch(/^warren_open_connections\{transport="sse"\} 1$/m);
    while (!(await iterator.next()).done);
  });
});
