// Accounts (issue #31) on 2 API replicas and 2 workers, through HTTP as DeerFlow's UI uses them:
// first-run set-up, sign-in on one replica and the cookie used on the other (REST, an SSE run,
// a WebSocket run), two accounts isolated from each other, sessions ended everywhere by logout
// and by a password change, forged and expired cookies refused, cross-site requests with the
// cookie refused, and sign-in throttling counted across replicas.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startReplicas, type ReplicaStack } from '../support/replica-stack.js';
import { parseSse } from '../support/sse.js';
import { testGraphs, testRedisDatabase } from '../support/stack.js';
import { upgradeStatus } from '../support/upgrade-status.js';

const SECRET = `test-session-secret-${randomUUID()}`;
const ROBOT_KEY = `robot-key-${randomUUID()}`;
const ADMIN = { email: `Admin-${randomUUID().slice(0, 8)}@Example.com`, password: 'first admin passphrase' };

let stack: ReplicaStack;
let A: string;
let B: string;

beforeAll(async () => {
  stack = await startReplicas({
    apis: 2,
    workers: 2,
    // The test's requests come from loopback, a trusted proxy here: each test names its own client by X-Real-IP.
    config: { graphs: testGraphs('echo'), auth: { api_keys: [{ key: ROBOT_KEY, user: 'robot' }], accounts: { enabled: true, self_registration: true, login_attempts: 3, trusted_proxies: ['127.0.0.1', '::1'] } } },
    env: { sessionSecret: SECRET, redisUrl: testRedisDatabase(1) },
  });
  [A, B] = stack.urls as [string, string];
}, 120_000);
afterAll(async () => stack?.close(), 60_000);

/** A browser's cookies for our server: what Set-Cookie gave, sent back as Cookie. */
class Jar {
  readonly values = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = decodeURIComponent(pair.slice(eq + 1));
      if (/Max-Age=0/.test(line)) this.values.delete(name);
      else this.values.set(name, value);
    }
  }
  get header(): string {
    return [...this.values].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }
  /** What DeerFlow's fetcher adds to a request that changes something. */
  get csrf(): Record<string, string> {
    const token = this.values.get('csrf_token');
    return token ? { 'x-csrf-token': token } : {};
  }
}

interface CallOptions {
  jar?: Jar;
  body?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Leave out the CSRF header a signed-in page would send. */
  noCsrf?: boolean;
}

async function call(base: string, method: string, route: string, { jar, body, form, headers = {}, noCsrf }: CallOptions = {}) {
  const res = await fetch(`${base}${route}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...(jar && jar.values.size > 0 ? { cookie: jar.header } : {}),
      ...(jar && !noCsrf && method !== 'GET' ? jar.csrf : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  jar?.take(res);
  const text = await res.text();
  let json: any = text;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    // An SSE body: kept as text.
  }
  return { status: res.status, headers: res.headers, body: json, text };
}

/** Signs in with DeerFlow's login form, from the client address `ip`. */
async function signIn(base: string, email: string, password: string, ip = `10.1.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) {
  const jar = new Jar();
  const answer = await call(base, 'POST', '/api/v1/auth/login/local', { jar, form: { username: email, password, remember_me: 'true' }, headers: { 'x-real-ip': ip } });
  return { jar, answer };
}

const searchThreads = async (base: string, jar: Jar) => (await call(base, 'POST', '/api/langgraph/threads/search', { jar, body: { limit: 100 } })).body as { thread_id: string }[];

describe('first-run set-up', () => {
  it('needs set-up until initialize makes the first admin, once, and signs it in', async () => {
    expect((await call(A, 'GET', '/api/v1/auth/setup-status')).body).toEqual({ needs_setup: true, registration_enabled: true });
    expect((await call(B, 'GET', '/api/v1/auth/me')).status).toBe(401);
    expect((await call(B, 'POST', '/api/langgraph/threads/search', { body: {} })).status).toBe(401);

    const weak = await call(A, 'POST', '/api/v1/auth/initialize', { body: { email: ADMIN.email, password: 'Password123' } });
    expect(weak.status).toBe(422);
    expect(weak.body.detail).toMatch(/too common/);
    expect((await call(A, 'POST', '/api/v1/auth/initialize', { body: { email: ADMIN.email, password: 'short' } })).body.detail).toMatch(/too short/);

    const jar = new Jar();
    const made = await call(A, 'POST', '/api/v1/auth/initialize', { jar, body: { ...ADMIN, remember_me: true } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ email: ADMIN.email.toLowerCase(), system_role: 'admin', needs_setup: false, oauth_provider: null });
    const cookies = made.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('access_token='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Max-Age=604800/);
    expect(session).not.toMatch(/Secure/);
    expect(cookies.find((c) => c.startsWith('csrf_token='))).toMatch(/SameSite=Strict/);
    expect(cookies.find((c) => c.startsWith('csrf_token='))).not.toMatch(/HttpOnly/);

    // The other replica sees it at once.
    expect((await call(B, 'GET', '/api/v1/auth/me', { jar })).body).toMatchObject({ id: made.body.id, system_role: 'admin' });
    expect((await call(B, 'GET', '/api/v1/auth/setup-status')).body).toEqual({ needs_setup: false, registration_enabled: true });
    const again = await call(B, 'POST', '/api/v1/auth/initialize', { body: { email: 'other@example.com', password: 'another admin passphrase' } });
    expect(again.status).toBe(409);
    // DeerFlow's body, which its set-up page reads to send the browser to /login.
    expect(again.body).toEqual({ detail: { code: 'system_already_initialized', message: expect.stringMatching(/already initialized/) } });
  });

  it('marks the cookies Secure when a trusted proxy says the browser came over HTTPS', async () => {
    const answer = await call(B, 'POST', '/api/v1/auth/login/local', { form: { username: ADMIN.email, password: ADMIN.password, remember_me: 'false' }, headers: { 'x-forwarded-proto': 'https', 'x-real-ip': '10.9.9.9' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ expires_in: 604800, needs_setup: false });
    for (const cookie of answer.headers.getSetCookie()) {
      expect(cookie).toMatch(/; Secure/);
      // Not remembered: the cookie ends with the browser.
      expect(cookie).not.toMatch(/Max-Age/);
    }
  });
});

describe('a session on both replicas', () => {
  let alice: Jar;
  let bob: Jar;
  beforeAll(async () => {
    const email = `alice-${randomUUID().slice(0, 8)}@example.com`;
    const made = await call(A, 'POST', '/api/v1/auth/register', { body: { email, password: 'alice passphrase 1' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.system_role).toBe('user');
    expect((await call(B, 'POST', '/api/v1/auth/register', { body: { email: email.toUpperCase(), password: 'alice passphrase 2' } })).status).toBe(400);
    alice = (await signIn(A, email, 'alice passphrase 1')).jar;
    const bobEmail = `bob-${randomUUID().slice(0, 8)}@example.com`;
    await call(B, 'POST', '/api/v1/auth/register', { body: { email: bobEmail, password: 'bob passphrase 1' } });
    // JSON works as well as the form.
    bob = new Jar();
    expect((await call(B, 'POST', '/api/v1/auth/login/local', { jar: bob, body: { email: bobEmail, password: 'bob passphrase 1' }, headers: { 'x-real-ip': '10.2.0.1' } })).status).toBe(200);
  });

  it('signed in on A, runs on B over REST and SSE, and over a WebSocket on A', async () => {
    const thread = await call(B, 'POST', '/api/langgraph/threads', { jar: alice, body: {} });
    expect(thread.status).toBe(200);
    const threadId = thread.body.thread_id as string;
    const sse = await call(B, 'POST', `/api/langgraph/threads/${threadId}/runs/stream`, { jar: alice, body: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'over sse' }] }, stream_mode: ['values'] } });
    expect(sse.status).toBe(200);
    const events = parseSse(sse.text);
    expect(events.at(-1)?.event).toBe('end');
    expect(JSON.stringify(events)).toContain('echo: over sse');

    const ws = new WebSocket(`${A.replace('http', 'ws')}/api/langgraph/threads/${threadId}/runs/stream`, { headers: { cookie: alice.header, origin: A } });
    const received: { event: string }[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      ws.on('open', () => ws.send(JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'over ws' }] }, stream_mode: ['values'] })));
      ws.on('message', (data) => received.push(JSON.parse(String(data)) as { event: string }));
      ws.on('close', (closeCode) => resolve(closeCode));
      ws.on('error', reject);
    });
    expect(code).toBe(1000);
    expect(received.at(-1)?.event).toBe('end');
    expect(JSON.stringify(received)).toContain('echo: over ws');
  });

  it('keeps each account to its own threads (another id answers 404); the admin sees both', async () => {
    const mine = (await call(A, 'POST', '/api/langgraph/threads', { jar: alice, body: { metadata: { who: 'alice' } } })).body.thread_id as string;
    const theirs = (await call(B, 'POST', '/api/langgraph/threads', { jar: bob, body: { metadata: { who: 'bob' } } })).body.thread_id as string;
    const aliceSees = (await searchThreads(B, alice)).map((t) => t.thread_id);
    const bobSees = (await searchThreads(A, bob)).map((t) => t.thread_id);
    expect(aliceSees).toContain(mine);
    expect(aliceSees).not.toContain(theirs);
    expect(bobSees).toContain(theirs);
    expect(bobSees).not.toContain(mine);
    expect((await call(A, 'GET', `/api/langgraph/threads/${theirs}`, { jar: alice })).status).toBe(404);
    const admin = (await signIn(B, ADMIN.email, ADMIN.password)).jar;
    const adminSees = (await searchThreads(A, admin)).map((t) => t.thread_id);
    expect(adminSees).toEqual(expect.arrayContaining([mine, theirs]));
  });

  it('refuses a cross-site request that carries the cookie, and a WebSocket from another origin', async () => {
    const evil = { origin: 'https://evil.example' };
    const forged = await call(A, 'POST', '/api/langgraph/threads', { jar: alice, body: {}, noCsrf: true, headers: evil });
    expect(forged.status).toBe(403);
    expect(forged.body.detail).toMatch(/Cross-site request refused/);
    // No token and no origin at all: refused too.
    expect((await call(B, 'POST', '/api/langgraph/threads', { jar: alice, body: {}, noCsrf: true })).status).toBe(403);
    // A wrong token: refused.
    expect((await call(B, 'POST', '/api/langgraph/threads', { jar: alice, body: {}, noCsrf: true, headers: { 'x-csrf-token': 'guess' } })).status).toBe(403);
    // A page of our own origin needs no token; the token alone passes from another origin (DeerFlow's Next.js server).
    expect((await call(B, 'POST', '/api/langgraph/threads', { jar: alice, body: {}, noCsrf: true, headers: { origin: B } })).status).toBe(200);
    expect((await call(B, 'POST', '/api/langgraph/threads', { jar: alice, body: {}, headers: { origin: 'http://localhost:3000' } })).status).toBe(200);
    // Sign-in from another site's page (login CSRF).
    const login = await call(A, 'POST', '/api/v1/auth/login/local', { form: { username: ADMIN.email, password: ADMIN.password }, headers: evil });
    expect(login.status).toBe(403);
    const threadId = randomUUID();
    expect(await upgradeStatus(`${A}/api/langgraph/threads/${threadId}/runs/stream`, { cookie: alice.header, ...evil })).toBe(403);
  });

  it('refuses a forged cookie and an expired one with 401', async () => {
    const claims = { sid: 'whatever' };
    const me = (await call(A, 'GET', '/api/v1/auth/me', { jar: alice })).body.id as string;
    const forgedToken = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(me).setIssuer('warren').setAudience('warren-session').setExpirationTime('1h').sign(new TextEncoder().encode('not-the-secret-not-the-secret-not-the-secret'));
    const forged = await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: `access_token=${forgedToken}` } });
    expect(forged.status).toBe(401);
    expect(forged.body.detail).toEqual({ code: 'token_invalid', message: expect.stringMatching(/invalid/) });
    const expiredToken = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(me).setIssuer('warren').setAudience('warren-session').setIssuedAt(1_700_000_000).setExpirationTime(1_700_000_060).sign(new TextEncoder().encode(SECRET));
    const expired = await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: `access_token=${expiredToken}` } });
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toEqual({ code: 'token_expired', message: expect.stringMatching(/expired/) });
    // Signed with the real key but naming no live session: refused too.
    const unknown = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(me).setIssuer('warren').setAudience('warren-session').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    expect((await call(A, 'GET', '/api/v1/auth/me', { headers: { cookie: `access_token=${unknown}` } })).status).toBe(401);
    expect((await call(A, 'GET', '/api/v1/auth/me', { headers: { cookie: 'access_token=garbage' } })).status).toBe(401);
    // Alice's real token with its payload changed to name the admin, the signature kept; and the same unsigned (`alg: none`).
    const [header = '', payload = '', signature = ''] = (alice.values.get('access_token') ?? '').split('.');
    const admin = (await call(A, 'GET', '/api/v1/auth/me', { jar: (await signIn(A, ADMIN.email, ADMIN.password)).jar })).body.id as string;
    const swapped = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: admin })).toString('base64url');
    expect((await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: `access_token=${header}.${swapped}.${signature}` } })).status).toBe(401);
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect((await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: `access_token=${none}.${swapped}.` } })).status).toBe(401);
  });
});

describe("DeerFlow's error body on /api/v1/auth", () => {
  const coded = (code: string) => ({ detail: { code, message: expect.stringMatching(/\w+ \w+/) } });

  it('answers {detail: {code, message}} where DeerFlow names a code (the message is our sentence), {detail: "…"} elsewhere', async () => {
    expect(await call(A, 'GET', '/api/v1/auth/me')).toMatchObject({ status: 401, body: coded('not_authenticated') });
    const email = `frank-${randomUUID().slice(0, 8)}@example.com`;
    expect((await call(B, 'POST', '/api/v1/auth/register', { body: { email, password: 'frank passphrase' } })).status).toBe(201);
    expect(await call(A, 'POST', '/api/v1/auth/register', { body: { email, password: 'frank passphrase' } })).toMatchObject({ status: 400, body: coded('email_already_exists') });
    expect((await signIn(A, email, 'not frank at all', '10.5.0.1')).answer).toMatchObject({ status: 401, body: coded('invalid_credentials') });
    expect(await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: 'access_token=garbage' } })).toMatchObject({ status: 401, body: coded('token_invalid') });
    // Causes DeerFlow answers with a string stay one: a value it refuses, a sign-in from another site.
    const weak = await call(A, 'POST', '/api/v1/auth/register', { body: { email: `g-${email}`, password: 'password123' } });
    expect(weak).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/too common/) } });
    expect((await call(A, 'POST', '/api/v1/auth/login/local', { form: { username: email, password: 'frank passphrase' }, headers: { origin: 'https://evil.example' } })).body.detail).toEqual(expect.any(String));
    // Outside /api/v1/auth the same refusal is Warren's plain {detail}.
    expect(await call(B, 'POST', '/api/langgraph/threads/search', { body: {} })).toMatchObject({ status: 401, body: { detail: expect.stringMatching(/\w+ \w+/) } });
  });
});

describe('beside API keys', () => {
  it('lets a program use its key as before (no cookie, no CSRF token), as its own user', async () => {
    const headers = { 'x-api-key': ROBOT_KEY };
    expect((await call(A, 'GET', '/api/v1/auth/me', { headers })).body).toMatchObject({ id: 'robot', email: 'robot@warren.local', system_role: 'user' });
    const made = await call(B, 'POST', '/api/langgraph/threads', { body: {}, headers: { ...headers, origin: 'https://elsewhere.example' } });
    expect(made.status).toBe(200);
    expect((await call(A, 'POST', '/api/v1/auth/change-password', { body: { current_password: 'x', new_password: 'a new passphrase' }, headers })).status).toBe(400);
    expect((await call(A, 'GET', '/api/v1/auth/me', { headers: { 'x-api-key': 'wrong-key-0123456789' } })).status).toBe(401);
  });
});

describe('ending sessions', () => {
  it('logout on one replica ends the session on the other at once, and only that session', async () => {
    const email = `carol-${randomUUID().slice(0, 8)}@example.com`;
    await call(A, 'POST', '/api/v1/auth/register', { body: { email, password: 'carol passphrase' } });
    const laptop = (await signIn(A, email, 'carol passphrase')).jar;
    const phone = (await signIn(B, email, 'carol passphrase')).jar;
    const stolen = laptop.header;
    expect((await call(B, 'GET', '/api/v1/auth/me', { jar: laptop })).status).toBe(200);
    const out = await call(A, 'POST', '/api/v1/auth/logout', { jar: laptop });
    expect(out.body).toEqual({ message: 'Successfully logged out' });
    expect(laptop.values.has('access_token')).toBe(false);
    const replay = await call(B, 'GET', '/api/v1/auth/me', { headers: { cookie: stolen } });
    expect(replay.status).toBe(401);
    expect(replay.body.detail).toEqual({ code: 'token_invalid', message: expect.stringMatching(/session has ended/) });
    expect((await call(A, 'GET', '/api/v1/auth/me', { jar: phone })).status).toBe(200);
  });

  it('a password change ends every other session everywhere, keeps the one it was made in, and needs the current password', async () => {
    const email = `dave-${randomUUID().slice(0, 8)}@example.com`;
    await call(B, 'POST', '/api/v1/auth/register', { body: { email, password: 'dave passphrase' } });
    const here = (await signIn(A, email, 'dave passphrase')).jar;
    const elsewhere = (await signIn(B, email, 'dave passphrase')).jar;
    const wrong = await call(B, 'POST', '/api/v1/auth/change-password', { jar: here, body: { current_password: 'not it at all', new_password: 'dave new passphrase' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toEqual({ code: 'invalid_credentials', message: expect.stringMatching(/Current password is incorrect/) });
    // Without the CSRF header the change is refused before anything is looked at.
    expect((await call(B, 'POST', '/api/v1/auth/change-password', { jar: here, noCsrf: true, body: { current_password: 'dave passphrase', new_password: 'dave new passphrase' } })).status).toBe(403);
    const changed = await call(B, 'POST', '/api/v1/auth/change-password', { jar: here, body: { current_password: 'dave passphrase', new_password: 'dave new passphrase', new_email: `new-${email}` } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await call(A, 'GET', '/api/v1/auth/me', { jar: elsewhere })).status).toBe(401);
    expect((await call(A, 'GET', '/api/v1/auth/me', { jar: here })).body.email).toBe(`new-${email}`);
    expect((await signIn(B, email, 'dave passphrase')).answer.status).toBe(401);
    expect((await signIn(A, `new-${email}`, 'dave new passphrase')).answer.status).toBe(200);
  });
});

describe('sign-in throttling', () => {
  it('answers 429 with Retry-After after the configured failures for one account, counted across replicas', async () => {
    const email = `erin-${randomUUID().slice(0, 8)}@example.com`;
    await call(A, 'POST', '/api/v1/auth/register', { body: { email, password: 'erin passphrase' } });
    // Each attempt from another address: the account's own count is what locks it.
    for (let i = 0; i < 3; i++) expect((await signIn(i % 2 ? A : B, email, 'wrong guess', `10.3.0.${i}`)).answer.status).toBe(401);
    const locked = await signIn(A, email, 'erin passphrase', '10.3.0.9');
    expect(locked.answer.status).toBe(429);
    expect(Number(locked.answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.answer.body.detail).toMatch(/Too many failed sign-ins/);
  });

  it('lets a burst of parallel guesses on both replicas through exactly the limit (3): the rest are 429', async () => {
    const email = `gina-${randomUUID().slice(0, 8)}@example.com`;
    await call(B, 'POST', '/api/v1/auth/register', { body: { email, password: 'gina passphrase' } });
    // All in flight at once, from one address: each check-and-count is one script, so none slips past.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(i % 2 ? A : B, email, `wrong guess ${i}`, '10.6.0.1')));
    const statuses = answers.map((a) => a.answer.status).sort();
    expect(statuses).toEqual([...Array(3).fill(401), ...Array(9).fill(429)]);
    // The right password is refused too until the lock ends.
    expect((await signIn(A, email, 'gina passphrase', '10.6.0.2')).answer.status).toBe(429);
  });

  it('counts one address across accounts and replicas (X-Real-IP from a trusted proxy)', async () => {
    const ip = '10.4.0.1';
    for (let i = 0; i < 3; i++) expect((await signIn(i % 2 ? A : B, `ghost${i}@example.com`, 'wrong guess', ip)).answer.status).toBe(401);
    expect((await signIn(B, ADMIN.email, ADMIN.password, ip)).answer.status).toBe(429);
    expect((await signIn(B, ADMIN.email, ADMIN.password, '10.4.0.2')).answer.status).toBe(200);
  });
});
