// The lead agent end to end through /api/langgraph, with the scripted OpenAI-compatible model.
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentScript } from '../support/agent-script.js';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import type { ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, type Stack } from '../support/stack.js';

let agent: AgentStack;
let stack: Stack;
let llm: ScriptedOpenAI;
let script: AgentScript;

beforeAll(async () => {
  agent = await startAgentStack({
    model: { display_name: 'Scripted', supports_vision: true, supports_thinking: true },
    moreModels: [{ name: 'keyless', use: 'openai', model: 'gpt-4o', api_key: '$WARREN_TEST_MISSING_KEY' }],
    config: { title: { max_words: 3, max_chars: 40 }, web: { fetch_allow_private_networks: true } },
  });
  ({ stack, llm, script } = agent);
});
afterAll(async () => agent?.close());
beforeEach(() => agent.reset());

type Msg = { type: string; content: unknown; name?: string; tool_call_id?: string; status?: string };
const run = (threadId: string, content: string, configurable: Record<string, unknown> = {}) => agent.run(threadId, content, configurable);
const stateOf = async (threadId: string) =>
  (await stack.client.threads.getState<{ messages: Msg[]; title: string; artifacts: string[]; thread_data: Record<string, string>; todos: unknown[] }>(threadId)).values;
const toolMessages = async (threadId: string) => (await stateOf(threadId)).messages.filter((m) => m.type === 'tool');

describe('lead agent', () => {
  it('answers, sets thread_data and folders, and titles the thread after the first exchange', async () => {
    script.lead.push({ content: 'Hello! How can I help?' });
    const { thread_id: id } = await stack.client.threads.create();
    const events = await run(id, 'hi there');
    expect(events.at(-1)?.event).toBe('end');
    const values = await stateOf(id);
    expect(values.messages.at(-1)).toMatchObject({ type: 'ai', content: 'Hello! How can I help?' });
    expect(values.title).toBe('Scripted Title For');
    expect(values.thread_data).toEqual({
      workspace_path: '/mnt/user-data/workspace',
      uploads_path: '/mnt/user-data/uploads',
      outputs_path: '/mnt/user-data/outputs',
    });
    const lead = script.leadRequests(llm.requests);
    expect(lead[0]?.messages[0]?.content).toMatch(/You are Warren/);
    expect(lead[0]?.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(['ls', 'read_file', 'write_file', 'str_replace', 'present_files', 'ask_clarification']));
    expect(lead[0]?.tools?.map((t) => t.function.name)).not.toContain('write_todos');
  });

  it('writes a report to outputs, presents it, and the file downloads from the artifacts endpoint', async () => {
    script.lead.push(
      {
        tool_calls: [
          { name: 'write_file', args: { path: '/mnt/user-data/outputs/report.md', content: '# Report\n\nAll good.\n' } },
        ],
      },
      { tool_calls: [{ name: 'present_files', args: { filepaths: ['/mnt/user-data/outputs/report.md'] } }] },
      { content: 'Your report is ready.' },
    );
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'write me a report');
    const values = await stateOf(id);
    expect(values.artifacts).toEqual(['/mnt/user-data/outputs/report.md']);
    const res = await fetch(`${stack.url}/api/threads/${id}/artifacts/mnt/user-data/outputs/report.md`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('# Report\n\nAll good.\n');
  });

  it('keeps todos in plan mode with write_todos', async () => {
    script.lead.push(
      { tool_calls: [{ name: 'write_todos', args: { todos: [{ content: 'Outline', status: 'in_progress' }, { content: 'Draft', status: 'pending' }] } }] },
      { content: 'Planned.' },
    );
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'plan it', { is_plan_mode: true });
    expect((await stateOf(id)).todos).toEqual([
      { content: 'Outline', status: 'in_progress' },
      { content: 'Draft', status: 'pending' },
    ]);
    expect(script.leadRequests(llm.requests)[0]?.tools?.map((t) => t.function.name)).toContain('write_todos');
  });

  it('turns a failing tool into an error tool message and goes on', async () => {
    script.lead.push({ tool_calls: [{ name: 'read_file', args: { path: '/mnt/user-data/workspace/missing.txt' } }] }, { content: 'That file does not exist.' });
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'read it');
    const [tool] = await toolMessages(id);
    expect(tool?.status).toBe('error');
    expect(String(tool?.content)).toMatch(/^Error: /);
    expect((await stateOf(id)).messages.at(-1)?.content).toBe('That file does not exist.');
  });

  it('refuses paths outside the sandbox', async () => {
    script.lead.push({ tool_calls: [{ name: 'read_file', args: { path: '/etc/passwd' } }] }, { content: 'Refused.' });
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'read passwd');
    const [tool] = await toolMessages(id);
    expect(tool?.status).toBe('error');
    expect(String(tool?.content)).not.toContain('root:');
  });

  it('stops repeated identical tool calls', async () => {
    const ls = { tool_calls: [{ name: 'ls', args: { path: '/mnt/user-data/workspace' } }] };
    script.lead.push(ls, ls, ls, ls, ls);
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'loop');
    const last = (await stateOf(id)).messages.at(-1);
    expect(String(last?.content)).toMatch(/repeat the same tool call/);
    expect((await toolMessages(id)).length).toBe(2);
  });

  it('interrupts on ask_clarification, and a resume run continues', async () => {
    script.lead.push({ tool_calls: [{ name: 'ask_clarification', args: { question: 'Which format?', options: ['PDF', 'Word'] } }] });
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'make a document');
    const thread = await stack.client.threads.get(id);
    expect(thread.status).toBe('interrupted');
    expect(JSON.stringify(thread.interrupts)).toContain('Which format?');
    script.lead.push({ content: 'PDF it is.' });
    await collect(stack.client.runs.stream(id, 'lead_agent', { command: { resume: 'PDF' }, config: { configurable: { model_name: 'scripted' } } }));
    expect((await stack.client.threads.get(id)).status).toBe('idle');
    const [tool] = await toolMessages(id);
    expect(String(tool?.content)).toContain('PDF');
    expect((await stateOf(id)).messages.at(-1)?.content).toBe('PDF it is.');
  });

  it('runs three sub-agents in parallel with task_* custom events', async () => {
    script.lead.push(
      {
        tool_calls: [1, 2, 3].map((i) => ({ name: 'task', args: { description: `part ${i}`, prompt: `Do part ${i}`, subagent_type: 'general-purpose' } })),
      },
      { content: 'All three parts are done.' },
    );
    script.sub.push(...[1, 2, 3].map((i) => ({ content: `result of part ${i}`, delayMs: 80 })));
    const { thread_id: id } = await stack.client.threads.create();
    const events = await run(id, 'split the work', { subagent_enabled: true });
    const custom = events.filter((e) => e.event === 'custom').map((e) => e.data as { type: string; task_id: string; description: string });
    const types = custom.map((c) => c.type);
    expect(types.filter((t) => t === 'task_started')).toHaveLength(3);
    expect(types.filter((t) => t === 'task_completed')).toHaveLength(3);
    expect(types.filter((t) => t === 'task_running').length).toBeGreaterThanOrEqual(3);
    // All three started before the first finished: they ran side by side.
    expect(types.lastIndexOf('task_started')).toBeLessThan(types.indexOf('task_completed'));
    expect(new Set(custom.map((c) => c.description))).toEqual(new Set(['part 1', 'part 2', 'part 3']));
    const tools = await toolMessages(id);
    expect(tools.map((t) => String(t.content)).sort()).toEqual(['result of part 1', 'result of part 2', 'result of part 3']);
  });

  it('answers a task with an unknown subagent_type with the known ones, and starts nothing', async () => {
    script.lead.push(
      { tool_calls: [{ name: 'task', args: { description: 'odd one', prompt: 'Do it', subagent_type: 'researcher' } }] },
      { content: 'I will use a known type next time.' },
    );
    const { thread_id: id } = await stack.client.threads.create();
    const events = await run(id, 'delegate', { subagent_enabled: true });
    expect(events.filter((e) => e.event === 'custom' && (e.data as { type?: string }).type === 'task_started')).toHaveLength(0);
    const [tool] = await toolMessages(id);
    expect(String(tool?.content)).toBe('There is no sub-agent type "researcher". Use one of: general-purpose, bash.');
  });

  it('fails a run whose model has no key with a clear error event', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const events = await collect(
      stack.client.runs.stream(id, 'lead_agent', { input: userInput('hi'), config: { configurable: { model_name: 'keyless' } } }),
    );
    const error = events.find((e) => e.event === 'error');
    expect(error?.data).toEqual({ error: 'MissingApiKey', message: 'model keyless: WARREN_TEST_MISSING_KEY is not set' });
  });

  it('maps thinking_enabled to the provider reasoning option for models that support it', async () => {
    script.lead.push({ content: 'Thought about it.' });
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'think', { thinking_enabled: true, reasoning_effort: 'high' });
    const [request] = script.leadRequests(llm.requests) as (typeof llm.requests[number] & { reasoning_effort?: string })[];
    expect(request?.reasoning_effort).toBe('high');
  });

  it('bash runs sandboxed: no host /etc/passwd, no other thread, its own files visible', async () => {
    const other = (await stack.client.threads.create()).thread_id;
    const otherDir = path.join(stack.home, 'threads', other, 'user-data', 'outputs');
    mkdirSync(otherDir, { recursive: true });
    writeFileSync(path.join(otherDir, 'secret.txt'), 'OTHER-THREAD-SECRET');
    script.lead.push(
      { tool_calls: [{ name: 'bash', args: { command: `cat /etc/passwd; cat ${otherDir}/secret.txt; ls /mnt/user-data` } }] },
      { content: 'Looked around.' },
    );
    const { thread_id: id } = await stack.client.threads.create();
    await run(id, 'look around');
    const [tool] = await toolMessages(id);
    const output = String(tool?.content);
    expect(output).not.toContain('OTHER-THREAD-SECRET');
    expect(output).not.toMatch(/^postgres:|^redis:|^mysql:/m);
    expect(output).toMatch(/outputs/);
  });

  it('repairs a tool call left dangling by a cancelled run', async () => {
    script.lead.push({ tool_calls: [{ name: 'bash', args: { command: 'sleep 30' }, id: 'call_dangling' }] });
    const { thread_id: id } = await stack.client.threads.create();
    const jsonClient = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
    await jsonClient.runs.create(id, 'lead_agent', { input: userInput('slow'), config: { configurable: { model_name: 'scripted' } } });
    const deadline = Date.now() + 20_000;
    let runId = '';
    while (Date.now() < deadline) {
      const runs = (await stack.client.runs.list(id)) as unknown as { runs: { run_id: string; status: string }[] };
      const active = runs.runs.find((r) => r.status === 'running');
      const state = await stateOf(id);
      if (active && (state.messages ?? []).some((m) => m.type === 'ai')) {
        runId = active.run_id;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(runId).not.toBe('');
    await stack.client.runs.cancel(id, runId, true);
    script.lead.push({ content: 'Recovered.' });
    llm.requests.length = 0;
    await run(id, 'again');
    const next = script.leadRequests(llm.requests)[0];
    const repaired = next?.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_dangling');
    expect(String(repaired?.content)).toMatch(/did not complete/);
  });

  it('summarises older turns once the conversation passes the token trigger', async () => {
    const local = await startStack({
      config: {
        models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'k' }],
        summarization: { enabled: true, trigger_tokens: 60, keep_messages: 2 },
        title: { enabled: false },
      },
    });
    try {
      const { thread_id: id } = await local.client.threads.create();
      for (let i = 0; i < 3; i++) {
        script.lead.push({ content: `answer ${i} ${'x'.repeat(120)}` });
        await collect(local.client.runs.stream(id, 'lead_agent', { input: userInput(`question ${i} ${'y'.repeat(120)}`), config: { configurable: { model_name: 'scripted' } } }));
      }
      const values = (await local.client.threads.getState<{ messages: Msg[] }>(id)).values;
      expect(String(values.messages[0]?.content)).toMatch(/^Summary of the earlier conversation:\nSUMMARY-OF-EARLIER-TURNS/);
      expect(values.messages.length).toBeLessThan(6);
    } finally {
      await local.close();
    }
  });

  it('fetches a web page as Markdown with web_fetch', async () => {
    const http = await import('node:http');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Warren news</h1><p>Agents <b>rock</b>.</p></body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      script.lead.push({ tool_calls: [{ name: 'web_fetch', args: { url: `http://127.0.0.1:${port}/` } }] }, { content: 'Read it.' });
      const { thread_id: id } = await stack.client.threads.create();
      await run(id, 'read the news');
      const [tool] = await toolMessages(id);
      expect(String(tool?.content)).toMatch(/# Warren news/);
    } finally {
      server.close();
    }
  });

  it('calls an enabled MCP server tool, named <server>_<tool>', async () => {
    const fixture = path.resolve('test/fixtures/mcp/fixture-server.ts');
    writeFileSync(
      stack.env.extensionsConfigPath,
      JSON.stringify({ mcpServers: { calc: { enabled: true, type: 'stdio', command: process.execPath, args: [fixture] } }, skills: {} }),
    );
    const { publishConfigChanged } = await import('../../src/queue/control.js');
    const { connectTestRedis } = await import('../support/test-redis.js');
    const { inject } = await import('vitest');
    const redis = connectTestRedis(inject('redisUrl'));
    await publishConfigChanged(redis, { what: 'extensions' });
    redis.disconnect();
    script.lead.push({ tool_calls: [{ name: 'calc_add', args: { a: 2, b: 3 } }] }, { content: 'It is 5.' });
    const { thread_id: id } = await stack.client.threads.create();
    let tool: Msg | undefined;
    for (let attempt = 0; attempt < 20 && !tool?.content; attempt++) {
      llm.requests.length = 0;
      script.lead.length = 0;
      script.lead.push({ tool_calls: [{ name: 'calc_add', args: { a: 2, b: 3 } }] }, { content: 'It is 5.' });
      const thread = attempt === 0 ? id : (await stack.client.threads.create()).thread_id;
      await run(thread, `add ${randomUUID()}`);
      [tool] = await toolMessages(thread);
      if (tool?.status === 'error') tool = undefined;
      if (!tool) await new Promise((r) => setTimeout(r, 250));
    }
    expect(String(tool?.content)).toContain('5');
  });
});
