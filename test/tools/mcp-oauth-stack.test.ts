// Issue 9 end to end: a real API and worker (test/support/stack.ts). The configuration goes in
// through PUT /api/mcp/config, the worker fetches an OAuth token and the agent calls the secured
// server's tool; a stdio entry written into the file by hand, past the gateway, is refused by
// the worker. This proves the wiring in workers/worker-process.ts, which the unit suites bypass.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishConfigChanged } from '../../src/queue/control.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-server.js';
import { startTokenEndpoint, type TokenEndpoint } from '../fixtures/mcp/token-server.js';
import { agentScript, type AgentScript } from '../support/agent-script.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import type { LogLine } from './mcp-support.js';

const CLIENT_SECRET = 'cs-stack-61e0a9d4c7b2';
const SECRET_VAR = 'WARREN_TEST_MCP_OAUTH_SECRET';

let stack: Stack;
let llm: ScriptedOpenAI;
let script: AgentScript;
let endpoint: TokenEndpoint;
let mcp: HttpFixture;
const lines: LogLine[] = [];

beforeAll(async () => {
  // The worker resolves `$WARREN_TEST_MCP_OAUTH_SECRET` from its environment: this process's.
  process.env[SECRET_VAR] = CLIENT_SECRET;
  endpoint = await startTokenEndpoint({ clientId: 'warren-stack', clientSecret: CLIENT_SECRET });
  mcp = await startHttpFixture({ acceptAuthorization: (value) => endpoint.isValid(value) });
  script = agentScript();
  llm = await startScriptedOpenAI((request) => script.route(request));
  stack = await startStack({
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }],
      mcp: { allow_private_networks: true },
    },
    logLevel: 'info',
    logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  });
});
afterAll(async () => {
  delete process.env[SECRET_VAR];
  await stack?.close();
  await llm?.close();
  await mcp?.close();
  await endpoint?.close();
});

type Msg = { type: string; content: unknown };

async function addThroughAgent(tool: string): Promise<unknown> {
  script.lead.push({ tool_calls: [{ name: tool, args: { a: 2, b: 3 } }] }, { content: 'It is 5.' });
  const { thread_id: threadId } = await stack.client.threads.create();
  await collect(
    stack.client.runs.stream(threadId, 'lead_agent', {
      input: userInput('add 2 and 3'),
      config: { configurable: { model_name: 'scripted' } },
    }),
  );
  const state = await stack.client.threads.getState<{ messages: Msg[] }>(threadId);
  return state.values.messages.find((m) => m.type === 'tool')?.content;
}

const secured = () => ({
  type: 'http',
  url: mcp.url,
  oauth: { token_url: endpoint.url, client_id: 'warren-stack', client_secret: `$${SECRET_VAR}` },
});

describe('MCP OAuth through the API and a worker', () => {
  it('a server saved with PUT is called by the agent with a bearer token from the token endpoint', async () => {
    const res = await fetch(`${stack.url}/api/mcp/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mcpServers: { secured: secured() } }),
    });
    expect(res.status).toBe(200);
    // The worker loads MCP tools on the first run, from the file as it is then.
    expect(String(await addThroughAgent('secured_add'))).toBe('5');
    expect(endpoint.requests).toMatchObject([{ grant_type: 'client_credentials', client_id: 'warren-stack', client_secret: CLIENT_SECRET }]);
    expect(new Set(mcp.authorizations)).toEqual(new Set([`Bearer ${endpoint.issued[0]}`]));
    expect(JSON.stringify(lines)).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(lines)).not.toContain(endpoint.issued[0]);
  });

  it('a worker refuses a stdio server written into the file by hand, and keeps the others', async () => {
    const marker = path.join(stack.home, 'rogue.ran');
    const file = stack.env.extensionsConfigPath;
    const config = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    config.mcpServers.rogue = { type: 'stdio', command: 'node', args: ['-e', `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`] };
    writeFileSync(file, JSON.stringify(config));
    const publisher = connectTestRedis(inject('redisUrl'));
    try {
      await publishConfigChanged(publisher, { what: 'extensions' });
    } finally {
      publisher.disconnect();
    }
    const skipped = await waitFor(
      async () => lines.find((l) => l.msg === 'MCP server skipped' && l.mcp_server === 'rogue'),
      'the worker to skip the rogue server',
    );
    expect(String(skipped.reason)).toMatch(/^refused by the stdio policy: server "rogue": args\[0\] "-e" runs code given inline/);
    expect(existsSync(marker)).toBe(false);
    expect(String(await addThroughAgent('secured_add'))).toBe('5');
  });
});
