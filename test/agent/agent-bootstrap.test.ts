// DeerFlow's "new agent" flow end to end (#30), on 2 API replicas and 2 workers: the UI creates
// a thread (and may retry the create), streams a bootstrap run naming an agent that does not
// exist yet, the scripted model saves it with setup_agent, `/api/agents/{name}` shows it, and a
// normal run with that agent_name chats with it and may change it with update_agent.
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentScript } from '../support/agent-script.js';
import { startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { collect, userInput, type SseEvent } from '../support/sse.js';

const script = agentScript();
let stack: ChannelStack<{ close(): Promise<void> }>;
let clients: Client[];
let bases: string[];

beforeAll(async () => {
  stack = await startChannelStack(script, async () => ({ close: async () => {} }), () => ({ apis: 2, workers: 2, config: {} }));
  bases = stack.cluster.apis.map((a) => `http://127.0.0.1:${a.port}`);
  clients = bases.map((base) => new Client({ apiUrl: `${base}/api/langgraph` }));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

beforeEach(() => {
  script.lead.length = 0;
  stack.llm.requests.length = 0;
});

const get = async (base: string, path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** A run as DeerFlow's UI sends it: its switches in `context`. */
const stream = (client: Client, threadId: string, text: string, context: Record<string, unknown>) =>
  collect(
    client.runs.stream(threadId, 'lead_agent', {
      input: userInput(text),
      streamMode: ['values'],
      config: { recursion_limit: 1000, configurable: { model_name: 'scripted' } },
      context: { mode: 'flash', thinking_enabled: false, is_plan_mode: false, subagent_enabled: false, thread_id: threadId, ...context },
      onDisconnect: 'continue',
    }),
  );

const lastValues = (events: SseEvent[]) => [...events].reverse().find((e) => e.event === 'values')?.data as { messages: Record<string, unknown>[] };
const leadRequests = () => script.leadRequests(stack.llm.requests);
const toolNames = (i = 0) => leadRequests()[i]?.tools?.map((t) => t.function.name) ?? [];
const systemPrompt = (i = 0) => String(leadRequests()[i]?.messages[0]?.content ?? '');

describe('agent bootstrap (#30)', () => {
  const name = `Helper-${randomUUID().slice(0, 6)}`;
  const key = name.toLowerCase();
  const soul = '# Identity\nYou are Helper, a terse assistant that answers in haiku.';

  it('admits a bootstrap run for a new name, and setup_agent saves the agent /api/agents serves', async () => {
    expect((await get(bases[0] as string, `/api/agents/check?name=${name}`)).body).toMatchObject({ available: true });
    const threadId = randomUUID();
    await clients[0]?.threads.create({ threadId });
    // The thread is seen from the other replica, which takes the bootstrap run.
    expect(await clients[1]?.threads.get(threadId)).toMatchObject({ thread_id: threadId });

    script.lead.push({ tool_calls: [{ name: 'setup_agent', args: { soul, description: 'Answers in haiku.', skills: [] } }] }, { content: 'Helper is saved.' });
    const events = await stream(clients[1] as Client, threadId, `The new custom agent name is ${name}. Help me design its purpose, behavior, and SOUL.md before saving it.`, {
      agent_name: name,
      is_bootstrap: true,
    });
    expect(events.some((e) => e.event === 'error')).toBe(false);
    const messages = lastValues(events).messages;
    expect(messages.find((m) => m.type === 'tool')).toMatchObject({ name: 'setup_agent', content: `Agent '${name}' created successfully!` });
    expect(messages.at(-1)).toMatchObject({ type: 'ai', content: 'Helper is saved.' });
    // Bound as DeerFlow binds it: setup_agent, never update_agent; the bootstrap prompt and skill only.
    expect(toolNames()).toContain('setup_agent');
    expect(toolNames()).not.toContain('update_agent');
    expect(toolNames()).toEqual(expect.arrayContaining(['glob', 'grep', 'list_uploaded_files']));
    expect(systemPrompt()).toContain(`create a new custom agent named "${key}"`);
    expect(systemPrompt()).toContain('- bootstrap:');
    expect(systemPrompt()).not.toContain('- deep-research:');

    const agent = await get(bases[0] as string, `/api/agents/${key}`);
    expect(agent).toMatchObject({ status: 200, body: { name: key, description: 'Answers in haiku.', soul, skills: [] } });
    expect((await get(bases[1] as string, `/api/agents/check?name=${name}`)).body).toMatchObject({ available: false });
  }, 60_000);

  it('chats with the saved agent, which may change itself with update_agent', async () => {
    const { thread_id: threadId } = (await clients[0]?.threads.create()) as { thread_id: string };
    script.lead.push({ tool_calls: [{ name: 'update_agent', args: { description: 'Answers in haiku, always.', soul: 'null' } }] }, { content: 'Old pond, frog jumps in.' });
    const events = await stream(clients[0] as Client, threadId, 'Hello there', { agent_name: key });
    const messages = lastValues(events).messages;
    expect(messages.find((m) => m.type === 'tool')).toMatchObject({
      name: 'update_agent',
      content: `Agent '${key}' updated successfully. Changed: description. The new configuration takes effect on the next user turn.`,
    });
    expect(messages.at(-1)).toMatchObject({ type: 'ai', content: 'Old pond, frog jumps in.' });
    expect(systemPrompt()).toContain(soul);
    expect(systemPrompt()).not.toContain('Creating a custom agent');
    expect(toolNames()).toContain('update_agent');
    expect(toolNames()).not.toContain('setup_agent');
    expect((await get(bases[1] as string, `/api/agents/${key}`)).body).toMatchObject({ description: 'Answers in haiku, always.', soul });
  }, 60_000);

  it('binds neither tool for the default agent, and still refuses an unknown agent outside bootstrap', async () => {
    const { thread_id: threadId } = (await clients[1]?.threads.create()) as { thread_id: string };
    await stream(clients[1] as Client, threadId, 'Hi', {});
    expect(toolNames()).not.toContain('setup_agent');
    expect(toolNames()).not.toContain('update_agent');
    expect(systemPrompt()).not.toContain('- bootstrap:');
    await expect(stream(clients[0] as Client, threadId, 'Hi', { agent_name: `nobody-${randomUUID().slice(0, 6)}` })).rejects.toThrow(/422|no custom agent/);
  }, 60_000);
});
