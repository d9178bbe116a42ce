// Accounts (issue #31): signing in with an OIDC provider, against a local issuer written for the
// test (test/support/fake-oidc.ts), on 2 API replicas: the sign-in starts on one replica and
// comes back to the other (the state lives in Redis), the code is exchanged with PKCE, the ID
// token verified, an account made and signed in; a callback this browser did not start, a
// replayed one and a provider's error are refused. As in DeerFlow, a provider's
// `auto_create_users` (default on) decides whether a first sign-in makes an account, whatever
// local `self_registration` says (off here).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOidc, type FakeOidc } from '../support/fake-oidc.js';
import { startReplicas, type ReplicaStack } from '../support/replica-stack.js';
import { testRedisDatabase } from '../support/stack.js';

let issuer: FakeOidc;
let stack: ReplicaStack;
let A: string;
let B: string;

beforeAll(async () => {
  issuer = await startFakeOidc();
  stack = await startReplicas({
    apis: 2,
    workers: 0,
    config: {
      auth: {
        accounts: {
          enabled: true,
          frontend_url: 'http://ui.example',
          oidc: {
            local: { display_name: 'Local IdP', issuer: issuer.issuer, client_id: issuer.clientId, client_secret: issuer.clientSecret },
            closed: { display_name: 'Invited only', issuer: issuer.issuer, client_id: issuer.clientId, client_secret: issuer.clientSecret, auto_create_users: false },
          },
        },
      },
    },
    env: { sessionSecret: `test-session-secret-${randomUUID()}`, redisUrl: testRedisDatabase(4) },
  });
  [A, B] = stack.urls as [string, string];
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await issuer?.close();
});

const cookiesOf = (res: Response): Map<string, string> =>
  new Map(res.headers.getSetCookie().map((line) => {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    return [pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1))] as [string, string];
  }));

/** The browser's walk up to the provider's answer: start on `start`, follow the provider's redirect; the callback URL and the state cookie. */
async function toCallback(start: string, next = '/workspace/chats/new', provider = 'local') {
  const begun = await fetch(`${start}/api/v1/auth/oauth/${provider}?next=${encodeURIComponent(next)}&remember_me=true`, { redirect: 'manual' });
  expect(begun.status).toBe(302);
  const stateCookie = begun.headers.getSetCookie().find((c) => c.startsWith('warren_oidc_state='));
  expect(stateCookie).toMatch(/Path=\/api\/v1\/auth\/callback/);
  expect(stateCookie).toMatch(/HttpOnly/);
  const authorize = new URL(begun.headers.get('location') ?? '');
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  return { callback: new URL(atProvider.headers.get('location') ?? ''), cookie: (stateCookie ?? '').split(';')[0] ?? '' };
}

describe('OIDC sign-in', () => {
  it('lists the provider', async () => {
    expect(await (await fetch(`${A}/api/v1/auth/providers`)).json()).toEqual({
      providers: [
        { id: 'local', display_name: 'Local IdP', type: 'oidc' },
        { id: 'closed', display_name: 'Invited only', type: 'oidc' },
      ],
    });
  });

  it('starts on one replica, finishes on the other, and signs the person in as a new account', async () => {
    const { callback, cookie } = await toCallback(A);
    // The redirect URI names the replica the browser started on; the test sends the browser to the other.
    const done = await fetch(`${B}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie } });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('http://ui.example/auth/callback?next=%2Fworkspace%2Fchats%2Fnew');
    const session = cookiesOf(done).get('access_token');
    expect(session).toBeTruthy();
    const me = (await (await fetch(`${A}/api/v1/auth/me`, { headers: { cookie: `access_token=${session}` } })).json()) as { id: string };
    expect(me).toMatchObject({ email: 'oidc.person@example.com', system_role: 'user', oauth_provider: 'local' });
    expect(issuer.refusals).toEqual([]);

    // The same person again: the same account.
    const second = await toCallback(B);
    const again = await fetch(`${A}${second.callback.pathname}${second.callback.search}`, { redirect: 'manual', headers: { cookie: second.cookie } });
    const meAgain = (await (await fetch(`${B}/api/v1/auth/me`, { headers: { cookie: `access_token=${cookiesOf(again).get('access_token')}` } })).json()) as { id: string };
    expect(meAgain.id).toBe(me.id);
    // Such an account has no password to change.
    const change = await fetch(`${B}/api/v1/auth/change-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `access_token=${cookiesOf(again).get('access_token')}; csrf_token=t`, 'x-csrf-token': 't' },
      body: JSON.stringify({ current_password: 'anything at all', new_password: 'a new passphrase' }),
    });
    expect(change.status).toBe(400);
  });

  it('refuses a callback without the state cookie, with another state, or replayed', async () => {
    const { callback, cookie } = await toCallback(A);
    const url = `${A}${callback.pathname}${callback.search}`;
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
    expect((await fetch(url, { redirect: 'manual', headers: { cookie: 'warren_oidc_state=someone-elses' } })).status).toBe(403);
    expect((await fetch(url, { redirect: 'manual', headers: { cookie } })).status).toBe(302);
    const replay = await fetch(url, { redirect: 'manual', headers: { cookie } });
    expect(replay.status).toBe(403);
    expect(((await replay.json()) as { detail: string }).detail).toMatch(/expired or was already used/);
  });

  it("sends the browser to the login page on the provider's error, and keeps `next` on our own pages", async () => {
    const failed = await fetch(`${B}/api/v1/auth/callback/local?error=access_denied&state=x`, { redirect: 'manual' });
    expect(failed.status).toBe(302);
    expect(failed.headers.get('location')).toBe('http://ui.example/login?error=sso_failed');
    const { callback, cookie } = await toCallback(A, '//evil.example/x');
    const done = await fetch(`${A}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie } });
    expect(done.headers.get('location')).toBe('http://ui.example/auth/callback?next=%2Fworkspace');
    expect((await fetch(`${A}/api/v1/auth/oauth/nope`, { redirect: 'manual' })).status).toBe(404);
  });
});

describe('OIDC sign-in with auto_create_users off', () => {
  it('signs nobody new in (no account, no cookie): the browser lands on /login?error=sso_not_allowed', async () => {
    issuer.person = { sub: `newcomer-${randomUUID()}`, email: 'newcomer@example.com' };
    const { callback, cookie } = await toCallback(A, '/workspace', 'closed');
    const done = await fetch(`${B}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie } });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('http://ui.example/login?error=sso_not_allowed');
    expect(cookiesOf(done).get('access_token')).toBeUndefined();
    // The same person through the provider that makes accounts signs in: had `closed` made an account, its email would be taken (sso_account_exists).
    const open = await toCallback(B);
    const made = await fetch(`${A}${open.callback.pathname}${open.callback.search}`, { redirect: 'manual', headers: { cookie: open.cookie } });
    const me = (await (await fetch(`${B}/api/v1/auth/me`, { headers: { cookie: `access_token=${cookiesOf(made).get('access_token')}` } })).json()) as { email: string; oauth_provider: string };
    expect(me).toMatchObject({ email: 'newcomer@example.com', oauth_provider: 'local' });
  });

  it('refuses to start when the switch is not a boolean, naming it', async () => {
    const oidc = { odd: { display_name: 'Odd', issuer: issuer.issuer, client_id: issuer.clientId, auto_create_users: 'no' } };
    await expect(startReplicas({ apis: 1, workers: 0, config: { auth: { accounts: { enabled: true, oidc } } }, env: { sessionSecret: `test-session-secret-${randomUUID()}` } })).rejects.toThrow(/auto_create_users/);
  });
});
