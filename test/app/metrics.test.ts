// /metrics in Prometheus text format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

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
    const body = await scrape();
    expect(body).toMatch(/^warren_queue_jobs\{state="waiting"\} \d+$/m);
    expect(body).toMatch(/^warren_active_runs \d+$/m);
    expect(body).toMatch(/^warren_runs_finished_total\{status="success"\} [1-9]\d*$/m);
    expect(body).toMatch(/^warren_stream_relay_lag_seconds_count [1-9]\d*$/m);
    expect(body).toMatch(/^warren_open_connections\{transport="sse"\} 0$/m);
    expect(body).toContain('# TYPE warren_conversion_duration_seconds histogram');
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
