// Accounts (issue #31), part one: with `auth.accounts` off (the default) /api/v1/auth answers as
// DeerFlow's backend does with its auth disabled, so its UI works signed out; and the start is
// refused when accounts are on without a signing key. Then a deployment with accounts on,
// self-registration off and no trusted proxy: register is refused, and a client cannot dodge
// the per-address sign-in limit by sending X-Real-IP.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaStack } from '../support/replica-stack.js';
import { startStack, testRedisDatabase, type Stack } from '../support/stack.js';

const SECRET = `test-session-secret-${randomUUID()}`;
const AUTH_MODULE = `${fileURLToPath(new URL('../fixtures/auth/auth.ts', import.meta.url))}:auth`;

async function call(base: string, method: string, route: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${base}/api/v1/auth${route}`, {
    method,
    redirect: 'manual',
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

describe('accounts off (the default)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ workers: 0 });
  });
  afterAll(async () => stack?.close());

  it("answers me with the open service's anonymous admin, and needs no set-up", async () => {
    expect(await call(stack.url, 'GET', '/me')).toMatchObject({
      status: 200,
      body: { id: 'anonymous', email: 'anonymous@warren.local', system_role: 'admin', needs_setup: false, oauth_provider: null },
    });
    expect(await call(stack.url, 'GET', '/setup-status')).toMatchObject({ status: 200, body: { needs_setup: false, registration_enabled: false } });
    expect(await call(stack.url, 'GET', '/providers')).toMatchObject({ status: 200, body: { providers: [] } });
  });

  it('signs out without fuss, and refuses to sign in, register or change a password with a {detail}', async () => {
    const out = await call(stack.url, 'POST', '/logout');
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((c) => c.startsWith('access_token=;') && c.includes('Max-Age=0'))).toBe(true);
    const body = { email: 'a@example.com', password: 'correct horse battery' };
    for (const route of ['/login/local', '/register', '/initialize']) {
      const answer = await call(stack.url, 'POST', route, { body: route === '/login/local' ? { username: body.email, password: body.password } : body });
      expect(answer.status, route).toBe(400);
      expect(answer.body.detail).toEqual({ code: 'invalid_credentials', message: expect.stringMatching(/Accounts are off/) });
    }
    const change = await call(stack.url, 'POST', '/change-password', { body: { current_password: 'x', new_password: 'correct horse battery' } });
    expect(change.status).toBe(400);
    expect((await call(stack.url, 'GET', '/oauth/google')).status).toBe(404);
  });

  it('refuses a field it does not take, naming it', async () => {
    const answer = await call(stack.url, 'POST', '/login/local', { body: { username: 'a@example.com', password: 'x', grant_type: 'password' } });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toMatch(/grant_type/);
  });
});

describe('accounts on', () => {
  it('refuse to start without WARREN_SESSION_SECRET', async () => {
    await expect(startReplicas({ apis: 1, workers: 0, config: { auth: { accounts: { enabled: true } } } })).rejects.toThrow(/WARREN_SESSION_SECRET/);
  });

  it('refuse to start with a trusted proxy that is not an address or a range', async () => {
    await expect(startReplicas({ apis: 1, workers: 0, config: { auth: { accounts: { enabled: true, trusted_proxies: ['proxy.local'] } } }, env: { sessionSecret: SECRET } })).rejects.toThrow(/not an address or a CIDR range/);
  });

  describe('with self-registration off and no trusted proxy', () => {
    let stack: ReplicaStack;
    beforeAll(async () => {
      stack = await startReplicas({ apis: 2, workers: 0, config: { auth: { accounts: { enabled: true, login_attempts: 2 } } }, env: { sessionSecret: SECRET, redisUrl: testRedisDatabase(2) } });
    });
    afterAll(async () => stack?.close());

    it('refuses register with 403', async () => {
      const answer = await call(stack.urls[0] as string, 'POST', '/register', { body: { email: 'new@example.com', password: 'a long enough passphrase' } });
      expect(answer.status).toBe(403);
      expect(answer.body.detail).toEqual({ code: 'registration_disabled', message: expect.stringMatching(/Self-registration is disabled/) });
      expect((await call(stack.urls[1] as string, 'GET', '/setup-status')).body).toEqual({ needs_setup: true, registration_enabled: false });
    });

    it("counts failures by the peer's address, whatever X-Real-IP an untrusted client sends", async () => {
      const attempt = (i: number) =>
        call(stack.urls[i % 2] as string, 'POST', '/login/local', { body: { username: `nobody${i}@example.com`, password: 'wrong password' }, headers: { 'x-real-ip': `10.0.0.${i}` } });
      expect((await attempt(1)).status).toBe(401);
      expect((await attempt(2)).status).toBe(401);
      const refused = await attempt(3);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.detail).toMatch(/Too many failed sign-ins/);
    });
  });

  describe('beside a custom auth module', () => {
    let stack: ReplicaStack;
    beforeAll(async () => {
      stack = await startReplicas({ apis: 2, workers: 0, config: { auth: { module: AUTH_MODULE, accounts: { enabled: true } } }, env: { sessionSecret: SECRET, redisUrl: testRedisDatabase(3) } });
    });
    afterAll(async () => stack?.close());

    it("takes either a session or the module's own credential", async () => {
      const [a, b] = stack.urls as [string, string];
      const made = await call(a, 'POST', '/initialize', { body: { email: 'root@example.com', password: 'module admin passphrase' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const cookie = made.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      expect((await call(b, 'GET', '/me', { headers: { cookie } })).body).toMatchObject({ id: made.body.id, system_role: 'admin' });
      expect((await call(b, 'GET', '/me', { headers: { authorization: 'Bearer token-bob' } })).body).toMatchObject({ id: 'bob', system_role: 'user' });
      // Neither: the module's own refusal.
      expect((await call(a, 'GET', '/me')).status).toBe(401);
    });
  });
});
