// /api/agents: DeerFlow's custom agents, kept in Redis so every replica sees them, and a run
// with `agent_name` that gets the agent's persona, model and tool groups.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import { userInput } from '../support/sse.js';
import { startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';

let agent: AgentStack;
let replica: GatewayApp;
beforeAll(async () => {
  agent = await startAgentStack({ moreModels: [{ name: 'scripted-b', use: 'openai', model: 'scripted-2', base_url: 'http://127.0.0.1:9', api_key: 'k' }] });
  // A second API process's gateway on the same Redis: what one replica stores, the other sees.
  replica = await startGatewayApp({ config: { models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', api_key: 'k' }] } });
});
afterAll(async () => {
  await replica?.close();
  await agent?.close();
});
beforeEach(() => agent.reset());

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${agent.stack.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
const onReplica = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  replica.api.app.inject({ method, url: `/api${url}`, ...(payload ? { payload } : {}) });
const uniqueName = () => `Agent-${randomUUID().slice(0, 8)}`;
/** The `detail` of an error answer. */
const detailOf = async (res: Response) => ((await res.json()) as { detail: string }).detail;

describe('custom agents', () => {
  it('are created (name lower-cased), read, listed, checked, updated and deleted, on either replica', async () => {
    const name = uniqueName();
    const lower = name.toLowerCase();
    expect(await (await api('GET', `/agents/check?name=${name}`)).json()).toEqual({ available: true, name: lower });
    const created = await api('POST', '/agents', { name, description: 'Writes haiku.', soul: 'You answer in haiku.', tool_groups: ['file:read'] });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({
      name: lower,
      display_name: null,
      description: 'Writes haiku.',
      model: null,
      tool_groups: ['file:read'],
      skills: null,
      soul: 'You answer in haiku.',
    });
    expect((await api('POST', '/agents', { name: lower })).status).toBe(409);
    expect((await onReplica('GET', `/agents/check?name=${lower}`)).json()).toEqual({ available: false, name: lower });
    expect((await onReplica('GET', `/agents/${name}`)).json()).toMatchObject({ name: lower, soul: 'You answer in haiku.' });
    const listed = (await (await api('GET', '/agents')).json()) as { agents: { name: string }[] };
    expect(listed.agents.map((a) => a.name)).toContain(lower);

    const updated = await onReplica('PUT', `/agents/${lower}`, { soul: 'You answer in limericks.', model: 'scripted', description: null });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ soul: 'You answer in limericks.', model: 'scripted', description: '', tool_groups: ['file:read'] });
    expect(await (await api('GET', `/agents/${lower}`)).json()).toMatchObject({ soul: 'You answer in limericks.' });

    expect((await onReplica('DELETE', `/agents/${lower}`)).json()).toEqual({ success: true, message: `Agent '${lower}' deleted.` });
    expect((await api('GET', `/agents/${lower}`)).status).toBe(404);
    expect((await api('DELETE', `/agents/${lower}`)).status).toBe(404);
    expect((await api('PUT', `/agents/${lower}`, { soul: 'x' })).status).toBe(404);
  });

  it('refuses bad names, unknown models, unknown tool groups and unknown fields with a 4xx naming them', async () => {
    for (const bad of ['../etc', 'a b', 'x'.repeat(65), 'ünï']) {
      const res = await api('POST', '/agents', { name: bad });
      expect(res.status, bad).toBe(422);
    }
    expect((await api('GET', `/agents/${encodeURIComponent('../x')}`)).status).toBe(422);
    expect((await api('GET', '/agents/check?name=a%20b')).status).toBe(422);
    const model = await api('POST', '/agents', { name: uniqueName(), model: 'gpt-9' });
    expect(model.status).toBe(422);
    expect(await detailOf(model)).toMatch(/model: 'gpt-9' is not a configured model/);
    const groups = await api('POST', '/agents', { name: uniqueName(), tool_groups: ['web', 'teleport'] });
    expect(await detailOf(groups)).toMatch(/tool_groups: unknown group 'teleport'/);
    const extra = await api('POST', '/agents', { name: uniqueName(), persona: 'x' });
    expect(extra.status).toBe(422);
    expect(await detailOf(extra)).toMatch(/persona/);
  });

  it("gives a run with agent_name the agent's soul, model and tool groups; an unknown agent is a 422", async () => {
    const name = uniqueName().toLowerCase();
    await api('POST', '/agents', { name, soul: 'You are Basho. Answer in haiku.', model: 'scripted', tool_groups: ['file:read'] });
    agent.script.lead.push({ content: 'Old pond, frog jumps in.' });
    const { thread_id: threadId } = await agent.stack.client.threads.create();
    // The run names no model: the agent's model answers (the other configured one is unreachable).
    const events = await agent.run(threadId, 'Say something', { model_name: undefined, agent_name: name });
    expect(events.at(-1)?.event).toBe('end');
    const [request] = agent.script.leadRequests(agent.llm.requests);
    const system = String(request?.messages[0]?.content);
    expect(system).toMatch(/## Persona\nYou are Basho\. Answer in haiku\./);
    const tools = request?.tools?.map((t) => t.function.name) ?? [];
    expect(tools).toEqual(expect.arrayContaining(['ls', 'read_file', 'present_files', 'ask_clarification']));
    expect(tools).not.toContain('write_file');
    expect(tools).not.toContain('web_search');
    expect(tools).not.toContain('bash');

    const unknown = agent.stack.client.runs.create(threadId, 'lead_agent', {
      input: userInput('hi'),
      config: { configurable: { agent_name: 'no-such-agent' } },
    });
    await expect(unknown).rejects.toThrow(/422|no custom agent named 'no-such-agent'/);
    const badName = agent.stack.client.runs.create(threadId, 'lead_agent', { input: userInput('hi'), context: { agent_name: '../../etc' } });
    await expect(badName).rejects.toThrow(/422|is not an agent name/);
  });
});
