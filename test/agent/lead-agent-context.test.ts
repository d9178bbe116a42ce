// What the lead agent is told and shown: uploads (read through their Markdown), images for
// vision models, enabled skills, and a sub-agent that runs out of time.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/redis-process.js';
import type { AgentScript } from '../support/agent-script.js';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import type { ScriptedOpenAI } from '../support/scripted-openai.js';
import type { Stack } from '../support/stack.js';

const FIXTURES = path.resolve('test/fixtures/documents');

let agent: AgentStack;
let stack: Stack;
let llm: ScriptedOpenAI;
let script: AgentScript;
let SEARX_PORT = 0;
beforeAll(async () => {
  SEARX_PORT = await freePort();
  agent = await startAgentStack({
    model: { supports_vision: true },
    config: {
      title: { enabled: false },
      subagents: { timeout_seconds: 1 },
      web: { search_enabled: true, search_provider: 'searxng', search_url: `http://127.0.0.1:${SEARX_PORT}`, fetch_allow_private_networks: true },
    },
  });
  ({ stack, llm, script } = agent);
});
afterAll(async () => agent?.close());
beforeEach(() => agent.reset());

type Msg = { type: string; content: unknown; status?: string };
const run = (threadId: string, content: string, configurable: Record<string, unknown> = {}) => agent.run(threadId, content, configurable);
const messagesOf = async (threadId: string) => (await stack.client.threads.getState<{ messages: Msg[] }>(threadId)).values.messages;

async function upload(threadId: string, file: string, name = path.basename(file)) {
  const form = new FormData();
  form.append('files', new Blob([readFileSync(file)]), name);
  const res = await fetch(`${stack.url}/api/threads/${threadId}/uploads`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as { files: { markdown_virtual_path?: string }[] };
}

describe('lead agent context', () => {
  it('searches the web through the configured SearXNG with web_search', async () => {
    const http = await import('node:http');
    let asked = '';
    const searx = http.createServer((req, res) => {
      asked = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [{ title: 'Warren docs', url: 'https://warren.example/docs', content: 'Agent workspace service.' }] }));
    });
    await new Promise<void>((r) => searx.listen(SEARX_PORT, '127.0.0.1', r));
    try {
      const { thread_id: id } = await stack.client.threads.create();
      script.lead.push({ tool_calls: [{ name: 'web_search', args: { query: 'warren agent' } }] }, { content: 'Found the docs.' });
      await run(id, 'search for warren');
      expect(asked).toBe('warren agent');
      const tool = (await messagesOf(id)).find((m) => m.type === 'tool');
      expect(String(tool?.content)).toContain('https://warren.example/docs');
    } finally {
      searx.close();
    }
  });

  it('is told about an uploaded .xlsx and reads it through its Markdown conversion', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const uploaded = await upload(id, path.join(FIXTURES, 'sample.xlsx'));
    const mdPath = uploaded.files[0]?.markdown_virtual_path as string;
    expect(mdPath).toBe('/mnt/user-data/uploads/sample.md');
    script.lead.push({ tool_calls: [{ name: 'read_file', args: { path: mdPath } }] }, { content: 'The sheet lists the ids.' });
    await run(id, 'what is in my spreadsheet?');
    const system = String(script.leadRequests(llm.requests)[0]?.messages[0]?.content);
    expect(system).toContain('/mnt/user-data/uploads/sample.xlsx');
    expect(system).toContain(`its text as Markdown: ${mdPath}`);
    const tool = (await messagesOf(id)).find((m) => m.type === 'tool');
    expect(String(tool?.content)).toContain('c41d2a9e-warren-xlsx');
    expect(String(tool?.content)).toMatch(/## Budget 2025/);
  });

  it('shows an image to a vision model with view_image', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    // A 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const form = new FormData();
    form.append('files', new Blob([png]), 'dot.png');
    expect((await fetch(`${stack.url}/api/threads/${id}/uploads`, { method: 'POST', body: form })).status).toBe(200);
    script.lead.push({ tool_calls: [{ name: 'view_image', args: { image_path: '/mnt/user-data/uploads/dot.png' } }] }, { content: 'A single dot.' });
    await run(id, 'what is in the picture?');
    const second = script.leadRequests(llm.requests)[1];
    const withImage = second?.messages.find((m) => JSON.stringify(m.content).includes('data:image/png;base64,'));
    expect(withImage?.role).toBe('user');
  });

  it('lists the enabled skills with their /mnt/skills paths, and reads a SKILL.md', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    script.lead.push({ tool_calls: [{ name: 'read_file', args: { path: '/mnt/skills/public/data-analysis/SKILL.md' } }] }, { content: 'Following the skill.' });
    await run(id, 'analyse my data');
    const system = String(script.leadRequests(llm.requests)[0]?.messages[0]?.content);
    expect(system).toMatch(/- data-analysis: .+ \(instructions: \/mnt\/skills\/public\/data-analysis\/SKILL\.md\)/);
    const tool = (await messagesOf(id)).find((m) => m.type === 'tool');
    expect(String(tool?.content)).toMatch(/name: data-analysis/);

    await fetch(`${stack.url}/api/skills/data-analysis/disable`, { method: 'POST' });
    llm.requests.length = 0;
    script.lead.push({ content: 'ok' });
    await run(id, 'again');
    expect(String(script.leadRequests(llm.requests)[0]?.messages[0]?.content)).not.toContain('data-analysis:');
    await fetch(`${stack.url}/api/skills/data-analysis/enable`, { method: 'POST' });
  });

  it('reports a sub-agent that runs out of time with task_timed_out, and the run goes on', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    script.lead.push({ tool_calls: [{ name: 'task', args: { description: 'slow part', prompt: 'take your time' } }] }, { content: 'The sub-agent timed out.' });
    script.sub.push({ content: 'a very slow answer that takes far too long to finish', delayMs: 400 });
    const events = await run(id, 'delegate', { subagent_enabled: true });
    const types = events.filter((e) => e.event === 'custom').map((e) => (e.data as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(['task_started', 'task_timed_out']));
    const tool = (await messagesOf(id)).find((m) => m.type === 'tool');
    expect(tool?.status).toBe('error');
    expect(String(tool?.content)).toMatch(/timed out/);
    expect((await messagesOf(id)).at(-1)?.content).toBe('The sub-agent timed out.');
  });
});
