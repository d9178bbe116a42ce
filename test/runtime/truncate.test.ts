// Dev mode's truncate is only there when config.yaml says `dev: true`, and only for admins when
// authentication is on. (What it wipes, across replicas: test/runtime/langgraph-compat.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', admin: 'admin-key-0123456789abcdef' } as const;
let stack: Stack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const truncate = (key?: string) =>
  fetch(`${stack?.apiUrl}/internal/truncate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify({ threads: true }),
  });

describe('POST /internal/truncate', () => {
  it('does not exist without dev: true', async () => {
    stack = await startStack({ config: { graphs: testGraphs('echo') } });
    expect((await truncate()).status).toBe(404);
  });

  it("is an admin's when authentication is on", async () => {
    stack = await startStack({
      config: {
        graphs: testGraphs('echo'),
        dev: true,
        auth: { api_keys: [{ key: KEYS.alice, user: 'alice' }, { key: KEYS.admin, user: 'ops', role: 'admin' }] },
      },
    });
    const refused = await truncate(KEYS.alice);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toHaveProperty('detail');
    expect((await truncate(KEYS.admin)).status).toBe(200);
  });
});
