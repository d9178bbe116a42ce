// Identities (issue 19): API keys that act for users, JWTs from an OIDC issuer checked against
// its JWKS (followed through a key rotation), and a LangGraph custom auth module loaded through
// config.yaml and through langgraph.json. A test-only route answers `request.identity`, so each
// test sees who the API took the request for.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesAccessFilter } from '../../src/auth/access.js';
import { authenticatorFor } from '../../src/auth/authenticator.js';
import type { Identity } from '../../src/auth/identity.js';
import { parseAppConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { startStack, type Stack } from '../support/stack.js';
import { upgradeStatus } from '../support/upgrade-status.js';

const AUTH_MODULE = fileURLToPath(new URL('../fixtures/auth/auth.ts', import.meta.url));
const AUTH_PROJECT = fileURLToPath(new URL('../fixtures/auth/langgraph.json', import.meta.url));

/** Adds GET /whoami, which answers the identity the request was taken for. */
const whoami = (app: Stack['api']['app']) => app.get('/whoami', async (request) => request.identity);

async function identityOf(stack: Stack, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${stack.url}/whoami`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

// ── a local OpenID Connect issuer ────────────────────────────────────────────────────────────

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** Serves its discovery document and the keys in `published`, which a test may change (a rotation). */
class Issuer {
  published: SigningKey[] = [];
  jwksFetches = 0;
  url = '';
  private server: Server = createServer((req, res) => {
    const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') return send({ issuer: this.url, jwks_uri: `${this.url}/keys` });
    if (req.url === '/keys') {
      this.jwksFetches += 1;
      return send({ keys: this.published.map((key) => key.jwk) });
    }
    res.writeHead(404).end();
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** A token signed with `key`: for `sub`, to `warren`, valid for five minutes, unless `claims` say otherwise. */
  sign(key: SigningKey, claims: JWTPayload = {}, header: { kid?: string } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.url, aud: 'warren', sub: 'carol', iat: now, exp: now + 300, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: header.kid ?? key.kid })
      .sign(key.privateKey);
  }
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// ── API keys and JWTs ────────────────────────────────────────────────────────────────────────

describe('API keys and JWTs', () => {
  const PLAIN = `plain-${randomUUID()}`;
  const ALICE = `alice-${randomUUID()}`;
  const ROOT = `root-${randomUUID()}`;
  const issuer = new Issuer();
  let keyA: SigningKey;
  let stack: Stack;

  beforeAll(async () => {
    keyA = await signingKey('key-a');
    issuer.published = [keyA];
    await issuer.start();
    stack = await startStack({
      workers: 0,
      beforeListen: whoami,
      config: {
        auth: {
          api_keys: [PLAIN, { key: ALICE, user: 'alice' }, { key: ROOT, user: 'root', role: 'admin' }],
          jwt: {
            issuer: issuer.url,
            audience: ['warren', 'other-app'],
            clock_skew_seconds: 30,
            role_claim: 'realm_access.roles',
            admin_values: ['warren-admin'],
            permissions_claim: 'scope',
            // Every unknown key refetches at once: the rotation below needs no wait.
            jwks_cooldown_seconds: 0,
          },
        },
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await issuer.stop();
  });

  it('takes a plain key as the anonymous admin, and a user key as its user and role', async () => {
    expect((await identityOf(stack, { 'x-api-key': PLAIN })).body).toEqual({ user: 'anonymous', role: 'admin', permissions: [] });
    expect((await identityOf(stack, { 'x-api-key': ALICE })).body).toEqual({ user: 'alice', role: 'user', permissions: [] });
    expect((await identityOf(stack, { authorization: `Bearer ${ROOT}` })).body).toEqual({ user: 'root', role: 'admin', permissions: [] });
    const refused = await identityOf(stack, { 'x-api-key': `${ALICE}x` });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid API key.' });
  });

  it('works with the LangGraph SDK under a user key', async () => {
    const thread = await new Client({ apiUrl: stack.apiUrl, apiKey: ALICE }).threads.create();
    expect(thread.thread_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes a token as its subject, with the role and permissions its claims give', async () => {
    const user = await identityOf(stack, { authorization: `Bearer ${await issuer.sign(keyA, { scope: 'threads:read threads:write' })}` });
    expect(user.status).toBe(200);
    expect(user.body).toEqual({ user: 'carol', role: 'user', permissions: ['threads:read', 'threads:write'] });
    const admin = await issuer.sign(keyA, { sub: 'dave', aud: 'other-app', realm_access: { roles: ['viewer', 'warren-admin'] } });
    expect((await identityOf(stack, { authorization: `Bearer ${admin}` })).body).toEqual({ user: 'dave', role: 'admin', permissions: [] });
  });

  it.each([
    ['expired', { exp: -60 }, /expired/],
    ['not yet valid, beyond the clock skew', { nbf: 120 }, /not yet valid/],
    ['for another issuer', { iss: 'https://elsewhere.example' }, /wrong issuer/],
    ['for another audience', { aud: 'someone-else' }, /wrong audience/],
    ['without an expiry', { exp: undefined }, /no "exp" claim/],
    ['without a subject', { sub: undefined }, /"sub" claim does not name a user/],
  ])('refuses a token %s with 401 naming why, never echoing it', async (_what, relative, detail) => {
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {};
    for (const [name, value] of Object.entries(relative)) claims[name] = typeof value === 'number' ? now + value : value;
    const token = await issuer.sign(keyA, claims);
    const res = await identityOf(stack, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(Object.keys(res.body)).toEqual(['detail']);
    expect(res.body.detail).toMatch(detail);
    expect(JSON.stringify(res.body)).not.toContain(token.split('.')[1]);
  });

  it('accepts a token not yet valid within the clock skew', async () => {
    const token = await issuer.sign(keyA, { nbf: Math.floor(Date.now() / 1000) + 10 });
    expect((await identityOf(stack, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('refuses a bad signature and alg "none" with 401', async () => {
    // Signed by a key the issuer never published, under the published key's id.
    const forged = await issuer.sign(await signingKey('key-a'), { sub: 'mallory' }, { kid: 'key-a' });
    const bad = await identityOf(stack, { authorization: `Bearer ${forged}` });
    expect(bad.status).toBe(401);
    expect(bad.body.detail).toMatch(/bad signature/);
    const valid = await issuer.sign(keyA);
    const [, payload] = valid.split('.');
    const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    const unsigned = await identityOf(stack, { authorization: `Bearer ${none}` });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.detail).toMatch(/^Invalid token: /);
    const swapped = await identityOf(stack, { authorization: `Bearer ${valid.split('.')[0]}.${base64url({ sub: 'root', iss: issuer.url, aud: 'warren', exp: 2e9 })}.${valid.split('.')[2]}` });
    expect(swapped.status).toBe(401);
  });

  it('follows a key rotation: a token of the new key refetches the keys; the dropped key is refused from then on', async () => {
    const before = await issuer.sign(keyA, { sub: 'erin' });
    expect((await identityOf(stack, { authorization: `Bearer ${before}` })).status).toBe(200);
    const keyB = await signingKey('key-b');
    issuer.published = [keyB];
    const fetches = issuer.jwksFetches;
    const after = await identityOf(stack, { authorization: `Bearer ${await issuer.sign(keyB, { sub: 'erin' })}` });
    expect(after.status).toBe(200);
    expect(after.body.user).toBe('erin');
    expect(issuer.jwksFetches).toBeGreaterThan(fetches);
    const old = await identityOf(stack, { authorization: `Bearer ${before}` });
    expect(old.status).toBe(401);
    expect(old.body.detail).toMatch(/unknown key/);
  });

  it('refuses a WebSocket upgrade with a bad token or key with 401 before the socket, and upgrades a valid one', async () => {
    const thread = await new Client({ apiUrl: stack.apiUrl, apiKey: ALICE }).threads.create();
    const url = `${stack.apiUrl}/threads/${thread.thread_id}/runs/stream`;
    const token = await issuer.sign(issuer.published[0] as SigningKey);
    expect(await upgradeStatus(url, {})).toBe(401);
    expect(await upgradeStatus(url, { authorization: `Bearer ${token}x` })).toBe(401);
    expect(await upgradeStatus(url, { 'x-api-key': 'not-a-key-not-a-key' })).toBe(401);
    // A valid token of another user is refused too, as the thread is alice's (404, as for any id one cannot reach).
    expect(await upgradeStatus(url, { authorization: `Bearer ${token}` })).toBe(404);
    expect(await upgradeStatus(url, { 'x-api-key': ALICE })).toBe(101);
    const own = await new Client({ apiUrl: stack.apiUrl, apiKey: null, defaultHeaders: { authorization: `Bearer ${token}` } }).threads.create();
    expect(await upgradeStatus(`${stack.apiUrl}/threads/${own.thread_id}/runs/stream`, { authorization: `Bearer ${token}` })).toBe(101);
  });
});

describe('an issuer that cannot be reached', () => {
  it('answers 503 while its keys cannot be fetched, not 401', async () => {
    const gone = new Issuer();
    await gone.start();
    const url = gone.url;
    const key = await signingKey('k');
    const token = await gone.sign(key);
    await gone.stop();
    const stack = await startStack({ workers: 0, beforeListen: whoami, config: { auth: { jwt: { issuer: url, audience: 'warren', fetch_timeout_seconds: 2 } } } });
    try {
      const res = await identityOf(stack, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/issuer/);
      const missing = await identityOf(stack, {});
      expect(missing.status).toBe(401);
      expect(missing.body.detail).toMatch(/Missing token/);
    } finally {
      await stack.close();
    }
  });
});

// ── a LangGraph custom auth module ───────────────────────────────────────────────────────────

describe.each([
  ['config.yaml auth.module', { auth: { module: `${AUTH_MODULE}:auth` } }],
  ["langgraph.json's auth.path", { langgraph_json: AUTH_PROJECT }],
])('a custom auth module through %s', (_via, config) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ workers: 0, beforeListen: whoami, config });
  });
  afterAll(async () => stack?.close());

  it('takes the identity authenticate() answers, with its permissions, its role and the rest', async () => {
    expect((await identityOf(stack, { authorization: 'Bearer token-alice' })).body).toEqual({
      user: 'alice',
      role: 'user',
      permissions: ['threads:write'],
      details: { org: 'acme' },
    });
    expect((await identityOf(stack, { authorization: 'Bearer token-root' })).body).toMatchObject({ user: 'root', role: 'admin' });
    expect((await identityOf(stack, { authorization: 'Bearer token-bob' })).body).toEqual({ user: 'bob', role: 'user', permissions: [] });
  });

  it("answers the module's HTTPException with its status, {detail} and headers; the probes stay open", async () => {
    const unknown = await identityOf(stack, { authorization: 'Bearer token-eve' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ detail: 'No such token (/whoami)' });
    const teapot = await identityOf(stack, { 'x-teapot': '1' });
    expect(teapot.status).toBe(418);
    expect(teapot.body).toEqual({ detail: 'Short and stout' });
    expect(teapot.headers.get('x-auth-reason')).toBe('teapot');
    expect((await fetch(`${stack.url}/ok`)).status).toBe(200);
    expect((await fetch(`${stack.apiUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    const thread = await new Client({ apiUrl: stack.apiUrl, defaultHeaders: { authorization: 'Bearer token-alice' } }).threads.create();
    expect(await upgradeStatus(`${stack.apiUrl}/threads/${thread.thread_id}/runs/stream`, {})).toBe(401);
  });
});

describe("a custom auth module's handlers, as the AccessPolicy", () => {
  const alice: Identity = { user: 'alice', role: 'user', permissions: ['threads:write'], details: { org: 'acme' } };
  const bob: Identity = { user: 'bob', role: 'user', permissions: [] };

  it('answers filters, refusals and changed values as LangGraph does', async () => {
    const { policy } = await authenticatorFor(parseAppConfig({ auth: { module: `${AUTH_MODULE}:auth` } }, {}).auth, [], process.cwd());
    // threads:create changes the value it is given; the caller keeps the change.
    const value: Record<string, unknown> = { thread_id: randomUUID(), metadata: { topic: 'x' } };
    expect(await policy.check({ identity: alice, resource: 'threads', action: 'create', value })).toBeNull();
    expect(value.metadata).toEqual({ topic: 'x', org: 'acme' });
    // The resource-level handler answers a filter for every other thread action.
    expect(await policy.check({ identity: alice, resource: 'threads', action: 'search', value: {} })).toEqual({ owner: 'alice' });
    expect(await policy.check({ identity: bob, resource: 'threads', action: 'create_run', value: {} })).toEqual({ owner: 'bob' });
    // false refuses (403); an HTTPException in a handler keeps its status and message.
    await expect(policy.check({ identity: bob, resource: 'store', action: 'get', value: {} })).rejects.toMatchObject({ statusCode: 403 });
    await expect(policy.check({ identity: bob, resource: 'store', action: 'put', value: {} })).rejects.toMatchObject({ statusCode: 403, message: 'Writing needs threads:write' });
    expect(await policy.check({ identity: alice, resource: 'store', action: 'put', value: {} })).toBeNull();
    // `*` answers true: allowed, no filter.
    expect(await policy.check({ identity: bob, resource: 'assistants', action: 'read', value: {} })).toBeNull();
  });

  it("reads a handler's filter as LangGraph does: equality, $eq and $contains", () => {
    const metadata = { owner: 'alice', tags: ['a', 'b'], n: 1 };
    expect(matchesAccessFilter(metadata, null)).toBe(true);
    expect(matchesAccessFilter(metadata, { owner: 'alice', n: 1 })).toBe(true);
    expect(matchesAccessFilter(metadata, { owner: 'bob' })).toBe(false);
    expect(matchesAccessFilter(metadata, { owner: { $eq: 'alice' } })).toBe(true);
    expect(matchesAccessFilter(metadata, { tags: { $contains: 'a' } })).toBe(true);
    expect(matchesAccessFilter(metadata, { tags: { $contains: ['a', 'b'] } })).toBe(true);
    expect(matchesAccessFilter(metadata, { tags: { $contains: ['a', 'c'] } })).toBe(false);
    expect(matchesAccessFilter(metadata, { owner: { $contains: 'a' } })).toBe(false);
    expect(matchesAccessFilter(undefined, { owner: 'alice' })).toBe(false);
  });

  it('refuses configurations that cannot work, at start', async () => {
    const config = (auth: Record<string, unknown>) => parseAppConfig({ auth }, {}).auth;
    await expect(authenticatorFor(config({ module: `${AUTH_MODULE}:auth`, api_keys: [`k-${randomUUID()}`] }), [], process.cwd())).rejects.toThrow(/decides alone/);
    await expect(authenticatorFor(config({ module: `${AUTH_MODULE}:nope` }), [], process.cwd())).rejects.toThrow(/no export "nope"/);
    await expect(authenticatorFor(config({ module: `${AUTH_MODULE}:USERS` }), [], process.cwd())).rejects.toThrow(ConfigError);
    await expect(authenticatorFor(config({ api_keys: [{ key: 'same-key-same-key', user: 'a' }, { key: 'same-key-same-key', user: 'b' }] }), [], process.cwd())).rejects.toThrow(/two users/);
    expect(() => parseAppConfig({ auth: { api_keys: [{ key: 'k'.repeat(16), user: 'a', role: 'root' }] } }, {})).toThrow(/auth\.api_keys\[0\]/);
    expect(() => parseAppConfig({ auth: { jwt: { issuer: 'https://id.example', audience: 'warren', algorithms: ['none'] } } }, {})).toThrow(/auth\.jwt\.algorithms/);
    expect(parseAppConfig({ auth: { api_keys: [{ key: '$K', user: 'a' }] } }, { K: 'k'.repeat(16) }).auth.api_keys).toEqual([{ key: 'k'.repeat(16), user: 'a' }]);
  });
});
