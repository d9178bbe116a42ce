// /api/memory on real Redis: DeerFlow's shapes, fact changes, export and import, the settings,
// refusals as 4xx {detail}, and two API replicas whose concurrent fact adds all survive.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';

let one: GatewayApp;
let two: GatewayApp;
beforeAll(async () => {
  const config = { memory: { max_facts: 10, debounce_seconds: 5, fact_confidence_threshold: 0.6, max_injection_tokens: 500 } };
  one = await startGatewayApp({ config });
  // A second replica on the same Redis and the same user.
  two = await startGatewayApp({ config, memoryUser: one.env.memoryUser as string });
});
afterAll(async () => {
  await two?.close();
  await one?.close();
});
beforeEach(async () => {
  await call(one, 'DELETE', '/memory');
});

async function call(app: GatewayApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await app.api.app.inject({ method, url: `/api${url}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

const emptySection = { summary: '', updatedAt: '' };
const EMPTY = {
  version: '1.0',
  // DeerFlow's empty memory is stamped with the current UTC time (#30).
  lastUpdated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  user: { workContext: emptySection, personalContext: emptySection, topOfMind: emptySection },
  history: { recentMonths: emptySection, earlierContext: emptySection, longTermBackground: emptySection },
  facts: [],
};

describe('/api/memory', () => {
  it('answers the empty memory in DeerFlow shape, and the settings under DeerFlow names', async () => {
    expect(await call(one, 'GET', '/memory')).toEqual({ status: 200, body: EMPTY });
    expect((await call(one, 'GET', '/memory/export')).body).toEqual(EMPTY);
    const settings = {
      enabled: true,
      debounce_seconds: 5,
      model_name: null,
      max_facts: 10,
      fact_confidence_threshold: 0.6,
      injection_enabled: true,
      max_injection_tokens: 500,
    };
    expect(await call(one, 'GET', '/memory/config')).toEqual({ status: 200, body: settings });
    expect(await call(one, 'GET', '/memory/status')).toEqual({ status: 200, body: { config: settings, data: EMPTY } });
  });

  it('adds, patches and deletes facts; the other replica sees each change', async () => {
    const added = await call(one, 'POST', '/memory/facts', { content: 'Prefers TypeScript', category: 'preference', confidence: 0.9 });
    expect(added.status).toBe(200);
    const [fact] = added.body.facts;
    expect(fact).toEqual({ id: expect.stringMatching(/^fact_/), content: 'Prefers TypeScript', category: 'preference', confidence: 0.9, createdAt: expect.any(String), source: 'manual' });
    expect(added.body.lastUpdated).not.toBe('');
    const defaults = await call(one, 'POST', '/memory/facts', { content: 'Lives in Lyon' });
    expect(defaults.body.facts[1]).toMatchObject({ content: 'Lives in Lyon', category: 'context', confidence: 0.5 });

    const patched = await call(two, 'PATCH', `/memory/facts/${fact.id}`, { confidence: 0.95 });
    expect(patched.body.facts[0]).toEqual({ ...fact, confidence: 0.95 });
    expect((await call(one, 'GET', '/memory')).body.facts[0].confidence).toBe(0.95);

    const removed = await call(two, 'DELETE', `/memory/facts/${fact.id}`);
    expect(removed.body.facts.map((f: { content: string }) => f.content)).toEqual(['Lives in Lyon']);
    expect((await call(one, 'DELETE', `/memory/facts/${fact.id}`)).status).toBe(404);
    const unknown = await call(one, 'PATCH', '/memory/facts/fact_nope', { content: 'x' });
    expect(unknown).toEqual({ status: 404, body: { detail: "Memory fact 'fact_nope' not found." } });
  });

  it('refuses bad input with a 4xx {detail}', async () => {
    const cases: [string, string, unknown, number][] = [
      ['POST', '/memory/facts', {}, 422],
      ['POST', '/memory/facts', { content: '' }, 422],
      ['POST', '/memory/facts', { content: '   ' }, 422],
      ['POST', '/memory/facts', { content: 'x', confidence: 1.5 }, 422],
      ['POST', '/memory/facts', { content: 'x', importance: 3 }, 422],
      ['PATCH', '/memory/facts/fact_1', { confidence: -1 }, 422],
      ['PATCH', '/memory/facts/..%2Fetc', { content: 'x' }, 422],
      ['POST', '/memory/import', { facts: [{ content: 'no id' }] }, 422],
      ['POST', '/memory/import', { facts: [{ id: 'a', content: 'x' }, { id: 'a', content: 'y' }] }, 422],
      ['POST', '/memory/import', { user: { workContext: { summary: 'x', mood: 'y' } } }, 422],
      ['POST', '/memory/import', { facts: Array.from({ length: 11 }, (_, i) => ({ id: `f${i}`, content: `fact ${i}` })) }, 422],
    ];
    for (const [method, url, payload, status] of cases) {
      const res = await call(one, method as 'POST', url, payload);
      expect(res.status, `${method} ${url} ${JSON.stringify(payload)}`).toBe(status);
      expect(typeof res.body.detail).toBe('string');
    }
    const unknownField = await call(one, 'POST', '/memory/facts', { content: 'x', importance: 3 });
    expect(unknownField.body.detail).toMatch(/importance/);
    await call(one, 'POST', '/memory/facts', { content: 'Uses Vim' });
    expect(await call(one, 'POST', '/memory/facts', { content: '  uses vim ' })).toEqual({ status: 409, body: { detail: 'A fact with the same content already exists.' } });
  });

  it('keeps at most max_facts, dropping the least confident, and refuses a fact that would be dropped at once', async () => {
    for (let i = 0; i < 10; i++) await call(one, 'POST', '/memory/facts', { content: `fact ${i}`, confidence: 0.5 + i / 100 });
    const sure = await call(one, 'POST', '/memory/facts', { content: 'a sure fact', confidence: 0.99 });
    expect(sure.body.facts).toHaveLength(10);
    expect(sure.body.facts.map((f: { content: string }) => f.content)).not.toContain('fact 0');
    const unsure = await call(one, 'POST', '/memory/facts', { content: 'an unsure fact', confidence: 0.1 });
    expect(unsure.status).toBe(409);
    expect(unsure.body.detail).toMatch(/max_facts/);
    expect((await call(one, 'GET', '/memory')).body.facts).toHaveLength(10);
  });

  it('exports what it imports, and DELETE clears', async () => {
    const memory = {
      version: '1.0',
      lastUpdated: '2024-01-15T10:30:00Z',
      user: {
        workContext: { summary: 'Works on Warren', updatedAt: '2024-01-15T10:30:00Z' },
        personalContext: { summary: 'Prefers short answers', updatedAt: '2024-01-15T10:30:00Z' },
        topOfMind: { summary: 'Memory for DeerFlow', updatedAt: '2024-01-15T10:30:00Z' },
      },
      history: {
        recentMonths: { summary: 'Built a Redis store', updatedAt: '2024-01-15T10:30:00Z' },
        earlierContext: emptySection,
        longTermBackground: emptySection,
      },
      facts: [{ id: 'fact_abc123', content: 'User prefers TypeScript', category: 'preference', confidence: 0.9, createdAt: '2024-01-15T10:30:00Z', source: 'thread_xyz' }],
    };
    expect(await call(one, 'POST', '/memory/import', memory)).toEqual({ status: 200, body: memory });
    const exported = (await call(two, 'GET', '/memory/export')).body;
    expect(exported).toEqual(memory);
    await call(one, 'DELETE', '/memory');
    expect(await call(two, 'POST', '/memory/import', exported)).toEqual({ status: 200, body: memory });
    // A partial import takes DeerFlow's defaults for what it leaves out.
    const partial = await call(one, 'POST', '/memory/import', { facts: [{ id: 'f1', content: 'Only this' }] });
    expect(partial.body).toMatchObject({ version: '1.0', user: EMPTY.user, facts: [{ id: 'f1', content: 'Only this', category: 'context', confidence: 0.5, createdAt: '', source: 'unknown' }] });
    expect(await call(two, 'DELETE', '/memory')).toEqual({ status: 200, body: EMPTY });
    expect((await call(one, 'GET', '/memory')).body).toEqual(EMPTY);
  });

  it('keeps every fact when two replicas add facts at the same time', async () => {
    const adds = Array.from({ length: 10 }, (_, i) => call(i % 2 === 0 ? one : two, 'POST', '/memory/facts', { content: `concurrent fact ${i}`, confidence: 0.9 }));
    const results = await Promise.all(adds);
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const facts = (await call(one, 'GET', '/memory')).body.facts.map((f: { content: string }) => f.content).sort();
    expect(facts).toEqual(Array.from({ length: 10 }, (_, i) => `concurrent fact ${i}`).sort());
  });
});
