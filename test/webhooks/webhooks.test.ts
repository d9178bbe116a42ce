// A run's `webhook`: POSTed the run with its values and error when the run ends, by whichever of
// two workers is free, retried with backoff after a 5xx; a webhook to a private address is refused
// when the run is created unless config.yaml allows private networks.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';
import { userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

interface Received {
  path: string;
  attempt: string | undefined;
  body: { run_id: string; thread_id: string; status: string; values: { messages: { content: string }[] } | null; error: unknown };
}

let stack: Stack;
let strict: GatewayApp;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let failuresLeft = 1;

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    void readBody(req).then((body) => {
      received.push({ path: req.url ?? '', attempt: req.headers['x-warren-delivery-attempt'] as string | undefined, body });
      const fail = req.url === '/flaky' && failuresLeft > 0;
      if (fail) failuresLeft -= 1;
      res.writeHead(fail ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({
    workers: 2,
    config: { graphs: testGraphs('echo'), webhooks: { allow_private_networks: true, backoff_seconds: 0.05, max_attempts: 3 } },
  });
  strict = await startGatewayApp({ config: { graphs: testGraphs('echo') } });
});
afterAll(async () => {
  await strict?.close();
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Resolves with the deliveries to `path` once there are `count` of them. */
async function deliveries(path: string, count: number): Promise<Received[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = received.filter((r) => r.path === path);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} deliveries to ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('run webhooks', () => {
  it('POSTs the run with its final values when it ends', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const run = (await stack.client.runs.wait(threadId, 'echo', { input: userInput('ping'), webhook: `${receiverUrl}/done` })) as unknown;
    expect(run).toBeTruthy();
    const [delivery] = await deliveries('/done', 1);
    expect(delivery?.attempt).toBe('1');
    expect(delivery?.body).toMatchObject({ thread_id: threadId, status: 'success', error: null });
    expect(delivery?.body.values?.messages.at(-1)?.content).toBe('echo: ping');
  });

  it('retries after a 500, with backoff, until delivered', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    await stack.client.runs.wait(threadId, 'echo', { input: userInput('again'), webhook: `${receiverUrl}/flaky` });
    const attempts = await deliveries('/flaky', 2);
    expect(attempts.map((a) => a.attempt)).toEqual(['1', '2']);
    expect(attempts[1]?.body).toMatchObject({ thread_id: threadId, status: 'success' });
  });

  it('refuses a webhook to a loopback or private address, or not over http, with 422 naming it', async () => {
    for (const webhook of ['http://127.0.0.1:9/x', 'http://10.0.0.1/x', 'http://[::ffff:7f00:1]/x', 'http://[64:ff9b::a9fe:a9fe]/latest', 'ftp://example.com/x', 'not a url']) {
      const res = await strict.api.app.inject({
        method: 'POST',
        url: '/api/langgraph/threads/t-webhook/runs/wait',
        payload: { assistant_id: 'echo', input: userInput('x'), webhook },
      });
      expect(res.statusCode, webhook).toBe(422);
      expect(res.json().detail, webhook).toMatch(/webhook/);
    }
  });
});
