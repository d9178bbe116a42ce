// Signing in with an OpenID Connect provider: the authorization-code flow with PKCE (S256) and a
// nonce. The sign-in under way (verifier, nonce, where to go after) is kept in Redis under its
// `state` for ten minutes and taken back once, so any replica can finish what another began and
// a replayed callback finds nothing. The state is also set in a cookie scoped to the callback,
// which must match: a callback URL made by someone else cannot sign this browser in as them.
// The ID token is verified with jose against the provider's JWKS (issuer, audience, expiry, nonce).
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { AccountsConfig, OidcProviderConfig } from '../config/app-config.schemas.js';
import { readCookie } from '../auth/cookies.js';
import type { AccountRecord, AccountStore } from '../store/accounts.js';
import { ProviderUnavailableError, SignInStateInvalidError, UnknownProviderError } from './accounts.errors.js';
import type { OAuthCallbackQuery, OAuthStartQuery } from './accounts.schemas.js';
import type { RequestFacts } from './accounts.service.js';
import { OIDC_CALLBACK_PATH, OIDC_STATE_COOKIE, oidcStateCookie } from './session-cookies.js';

const SIGN_IN_TTL_SECONDS = 600;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const DEFAULT_FETCH_TIMEOUT_SECONDS = 10;

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

interface PendingSignIn {
  provider: string;
  verifier: string;
  nonce: string;
  next: string;
  remember: boolean;
  redirectUri: string;
}

export interface Redirect {
  location: string;
  cookies: string[];
}

export interface OidcSignIn {
  start(providerId: string, query: OAuthStartQuery, facts: RequestFacts): Promise<Redirect>;
  finish(providerId: string, query: OAuthCallbackQuery, facts: RequestFacts): Promise<Redirect>;
}

export interface OidcSignInDeps {
  config: AccountsConfig;
  store: AccountStore;
  /** A session for the account: its cookies. */
  startSession(account: AccountRecord, facts: RequestFacts, remember: boolean): Promise<string[]>;
}

const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');
const sha256url = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A path on our own UI (`/workspace/chats/…`): never another site, nor a scheme, nor a path a browser reads as one (`//x`, `/\x`). */
export function safeNextPath(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || /[\\:\s]/.test(next)) return '/workspace';
  return next;
}

const isUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\//.test(value);

export function createOidcSignIn({ config, store, startSession }: OidcSignInDeps): OidcSignIn {
  // A cache: each provider's discovery document and key set, dropped when a fetch fails.
  const discoveryCache = new Map<string, Promise<Discovery>>();
  const keySetCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  const providerOf = (id: string): OidcProviderConfig => {
    const provider = Object.hasOwn(config.oidc, id) ? config.oidc[id] : undefined;
    if (!config.enabled || !provider) throw new UnknownProviderError(`Unknown sign-in provider: ${id}.`);
    return provider;
  };
  const timeoutMs = (provider: OidcProviderConfig) => (provider.fetch_timeout_seconds ?? DEFAULT_FETCH_TIMEOUT_SECONDS) * 1000;
  const timeout = (provider: OidcProviderConfig) => AbortSignal.timeout(timeoutMs(provider));

  const discover = (id: string, provider: OidcProviderConfig): Promise<Discovery> => {
    const cached = discoveryCache.get(id);
    if (cached) return cached;
    const loading = (async () => {
      const url = `${provider.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      let doc: Record<string, unknown>;
      try {
        const res = await fetch(url, { signal: timeout(provider), redirect: 'error' });
        if (!res.ok) throw new ProviderUnavailableError(`${url} answered ${res.status}`);
        doc = (await res.json()) as Record<string, unknown>;
      } catch (err) {
        throw new ProviderUnavailableError(`The sign-in provider ${id} could not be reached. Retry shortly.`, { cause: err });
      }
      const { authorization_endpoint: authorize, token_endpoint: token, jwks_uri: jwks } = doc;
      if (!isUrl(authorize) || !isUrl(token) || !isUrl(jwks)) throw new ProviderUnavailableError(`The sign-in provider ${id}'s discovery document lacks its endpoints.`);
      return { authorization_endpoint: authorize, token_endpoint: token, jwks_uri: jwks };
    })();
    discoveryCache.set(id, loading);
    loading.catch(() => discoveryCache.delete(id));
    return loading;
  };

  const keySet = (discovery: Discovery, provider: OidcProviderConfig) => {
    let set = keySetCache.get(discovery.jwks_uri);
    if (!set) {
      set = createRemoteJWKSet(new URL(discovery.jwks_uri), { timeoutDuration: timeoutMs(provider) });
      keySetCache.set(discovery.jwks_uri, set);
    }
    return set;
  };

  /** The code exchanged for tokens at the provider's token endpoint (RFC 6749 §4.1.3, with the PKCE verifier). */
  const exchange = async (id: string, provider: OidcProviderConfig, discovery: Discovery, code: string, pending: PendingSignIn): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: pending.redirectUri, code_verifier: pending.verifier, client_id: provider.client_id });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (provider.client_secret) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(provider.client_id)}:${encodeURIComponent(provider.client_secret)}`).toString('base64')}`;
    }
    let answer: Record<string, unknown>;
    try {
      const res = await fetch(discovery.token_endpoint, { method: 'POST', headers, body: form, signal: timeout(provider), redirect: 'error' });
      answer = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new ProviderUnavailableError(`token endpoint answered ${res.status} ${String(answer.error ?? '')}`);
    } catch (err) {
      throw new ProviderUnavailableError(`The sign-in provider ${id} did not exchange the code.`, { cause: err });
    }
    if (typeof answer.id_token !== 'string') throw new ProviderUnavailableError(`The sign-in provider ${id} sent no ID token.`);
    return answer.id_token;
  };

  /** The account the verified claims sign in as: the one linked to the subject, else a new one (a `user`) if the provider allows. */
  const accountFor = async (id: string, provider: OidcProviderConfig, claims: JWTPayload): Promise<AccountRecord | 'email_taken' | 'not_allowed'> => {
    const subject = claims.sub as string;
    const linked = await store.idByOAuth(id, subject);
    const existing = linked === null ? null : await store.get(linked);
    if (existing) return existing;
    if (provider.auto_create_users === false) return 'not_allowed';
    const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim().toLowerCase() : `${createHash('sha256').update(subject).digest('hex').slice(0, 24)}@${id}.oidc.warren.local`;
    const account: AccountRecord = { id: randomUUID(), email, role: 'user', created_at: new Date().toISOString(), password_hash: null, oauth_provider: id, oauth_subject: subject };
    const outcome = await store.create(account);
    if (outcome === 'created') return account;
    // Two callbacks of one person at once: the other made it.
    const raced = await store.idByOAuth(id, subject);
    const made = raced === null ? null : await store.get(raced);
    return made ?? 'email_taken';
  };

  const loginError = (code: string): Redirect => ({ location: `${config.frontend_url ?? ''}/login?error=${code}`, cookies: [] });

  return {
    async start(id, query, facts) {
      const provider = providerOf(id);
      const discovery = await discover(id, provider);
      const state = b64url(32);
      const pending: PendingSignIn = {
        provider: id,
        verifier: b64url(48),
        nonce: b64url(24),
        next: safeNextPath(query.next),
        remember: query.remember_me === undefined || query.remember_me === true || query.remember_me === 'true',
        redirectUri: provider.redirect_uri ?? `${facts.ownOrigin ?? ''}${OIDC_CALLBACK_PATH}/${id}`,
      };
      await store.putSignIn(state, JSON.stringify(pending), SIGN_IN_TTL_SECONDS);
      const url = new URL(discovery.authorization_endpoint);
      const params = {
        response_type: 'code',
        client_id: provider.client_id,
        redirect_uri: pending.redirectUri,
        scope: (provider.scopes ?? DEFAULT_SCOPES).join(' '),
        state,
        nonce: pending.nonce,
        code_challenge: sha256url(pending.verifier),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { location: url.toString(), cookies: [oidcStateCookie(state, facts.https, SIGN_IN_TTL_SECONDS)] };
    },

    async finish(id, query, facts) {
      const provider = providerOf(id);
      if (query.error) return loginError('sso_failed');
      const cookieState = readCookie(facts.cookieHeader, OIDC_STATE_COOKIE);
      if (!query.code || !query.state || !cookieState || cookieState.length !== query.state.length || !timingSafeEqual(Buffer.from(cookieState), Buffer.from(query.state))) {
        throw new SignInStateInvalidError('Sign-in refused: this callback does not belong to a sign-in this browser started.');
      }
      const saved = await store.takeSignIn(query.state);
      const pending = saved === null ? null : (JSON.parse(saved) as PendingSignIn);
      if (!pending || pending.provider !== id) throw new SignInStateInvalidError('Sign-in refused: the sign-in has expired or was already used. Start again.');
      const discovery = await discover(id, provider);
      const idToken = await exchange(id, provider, discovery, query.code, pending);
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(idToken, keySet(discovery, provider), { issuer: provider.issuer, audience: provider.client_id, requiredClaims: ['sub', 'exp', 'nonce'] }));
      } catch {
        return loginError('sso_failed'); // An ID token that does not verify signs nobody in; the reason stays with the provider.
      }
      if (claims.nonce !== pending.nonce || typeof claims.sub !== 'string' || claims.sub === '') return loginError('sso_failed');
      const account = await accountFor(id, provider, claims);
      if (account === 'email_taken') return loginError('sso_account_exists');
      if (account === 'not_allowed') return loginError('sso_not_allowed');
      const cookies = await startSession(account, facts, pending.remember);
      return { location: `${config.frontend_url ?? ''}/auth/callback?next=${encodeURIComponent(pending.next)}`, cookies: [...cookies, oidcStateCookie('', facts.https, 0)] };
    },
  };
}
