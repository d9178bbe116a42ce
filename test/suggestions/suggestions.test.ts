// POST /api/threads/{id}/suggestions: follow-up questions made by a worker on the scripted model,
// and an empty list (never an error) when they cannot be made.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';

let agent: AgentStack;
beforeAll(async () => {
  agent = await startAgentStack();
});
afterAll(async () => agent?.close());
beforeEach(() => agent.reset());

const suggest = async (body: unknown, threadId: string = randomUUID()) => {
  const res = await fetch(`${agent.stack.url}/api/threads/${threadId}/suggestions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { suggestions?: string[]; detail?: string } };
};
const conversation = [
  { role: 'user', content: 'How do I bake bread?' },
  { role: 'assistant', content: 'Mix flour, water, salt and yeast, knead, let it rise, bake.' },
];

describe('follow-up suggestions', () => {
  it('asks the model with the conversation and answers at most n questions', async () => {
    agent.script.lead.push({ content: '```json\n["How long should it rise?", "Which flour is best?", "Can I skip kneading?", "Fourth?"]\n```' });
    const { status, body } = await suggest({ messages: conversation, n: 3, model_name: 'scripted' });
    expect(status).toBe(200);
    expect(body).toEqual({ suggestions: ['How long should it rise?', 'Which flour is best?', 'Can I skip kneading?'] });
    const request = agent.llm.requests.at(-1);
    expect(String(request?.messages[0]?.content)).toMatch(/exactly 3 short follow-up questions/);
    expect(String(request?.messages[1]?.content)).toMatch(/User: How do I bake bread\?\nAssistant: Mix flour/);
  });

  it('answers an empty list when the model says something else, names an unknown model, or there is nothing to go on', async () => {
    agent.script.lead.push({ content: 'Sure! Here are some ideas: bake more.' });
    expect((await suggest({ messages: conversation })).body).toEqual({ suggestions: [] });
    expect((await suggest({ messages: conversation, model_name: 'no-such-model' })).body).toEqual({ suggestions: [] });
    const before = agent.llm.requests.length;
    expect((await suggest({ messages: [] })).body).toEqual({ suggestions: [] });
    expect(agent.llm.requests.length).toBe(before);
  });

  it('refuses a bad request with 422 {detail}', async () => {
    for (const body of [{ messages: conversation, n: 9 }, { messages: conversation, extra: 1 }, { messages: 'hi' }, {}]) {
      const res = await suggest(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toBeTruthy();
    }
    expect((await suggest({ messages: conversation }, 'bad%20id')).status).toBe(422);
  });
});
