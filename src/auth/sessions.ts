// People's sessions: a JWT signed with WARREN_SESSION_SECRET (HS256, jose) naming the account and
// one session id, carried in the `access_token` cookie. Every request that presents it is checked
// twice: the signature and expiry here, then, in one Redis round trip, that the session is still
// in the account's live set (store/accounts.ts) and what the account's role is now. Signing out
// removes the id, a password change empties the set: every replica refuses the old cookie on the
// next request, with no cache to wait out.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { AccountStore, NewSession } from '../store/accounts.js';
import { ConfigError } from '../errors.js';
import { CredentialsMissingError, CrossSiteRefusedError, SessionExpiredError, SessionInvalidError } from './auth.errors.js';
import { presentedCredential, type Authenticator } from './authenticator.js';
import { CSRF_COOKIE, CSRF_HEADER, readCookie, SESSION_COOKIE } from './cookies.js';
import { secretDigest } from './constant-time.js';
import type { Identity } from './identity.js';
import type { RequestOrigins } from './request-origin.js';

const ISSUER = 'warren';
const AUDIENCE = 'warren-session';
const DAY_MS = 86_400_000;

export interface SessionClaims {
  accountId: string;
  sessionId: string;
}

export interface Sessions {
  /** A new session for the account, lasting `days`: its signed token, and the id and expiry to store. */
  issue(accountId: string, days: number): Promise<{ token: string; session: NewSession }>;
  /** The claims of a token Warren signed and that has not expired, whether or not the session still lives. */
  decode(token: string): Promise<SessionClaims>;
  /** The identity of a live session; a 401 names why not. */
  verify(token: string): Promise<Identity>;
}

/** The signing key, or a ConfigError that stops the start: accounts on and no key is no deployment. */
export function requireSessionSecret(secret: string | undefined): string {
  if (!secret || secret.length < 32) {
    throw new ConfigError('auth.accounts.enabled needs WARREN_SESSION_SECRET (at least 32 characters, the same on every API replica) to sign sessions.');
  }
  return secret;
}

export function createSessions(secret: string | undefined, accounts: Pick<AccountStore, 'sessionRole'>): Sessions {
  const key = new TextEncoder().encode(requireSessionSecret(secret));
  const decode = async (token: string): Promise<SessionClaims> => {
    try {
      const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], requiredClaims: ['exp', 'sub', 'sid'] });
      const { sub, sid } = payload;
      if (typeof sub !== 'string' || typeof sid !== 'string') throw new SessionInvalidError('Not signed in: the session cookie is invalid.');
      return { accountId: sub, sessionId: sid };
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new SessionExpiredError('Not signed in: the session has expired. Sign in again.');
      if (err instanceof SessionInvalidError) throw err;
      throw new SessionInvalidError('Not signed in: the session cookie is invalid.', { cause: err });
    }
  };
  return {
    async issue(accountId, days) {
      const now = Date.now();
      const session: NewSession = { id: randomBytes(18).toString('base64url'), expiresAt: now + days * DAY_MS };
      const token = await new SignJWT({ sid: session.id })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(accountId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(Math.floor(now / 1000))
        .setExpirationTime(Math.floor(session.expiresAt / 1000))
        .sign(key);
      return { token, session };
    },
    decode,
    async verify(token) {
      const { accountId, sessionId } = await decode(token);
      const role = await accounts.sessionRole(accountId, sessionId, Date.now());
      if (role === null) throw new SessionInvalidError('Not signed in: the session has ended (signed out, or the password was changed). Sign in again.');
      return { user: accountId, role, permissions: [] };
    },
  };
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The CSRF cookie and header match (both present, compared in constant time). */
export function csrfTokenMatches(request: Pick<FastifyRequest, 'headers'>): boolean {
  const cookie = readCookie(request.headers.cookie, CSRF_COOKIE);
  const header = request.headers[CSRF_HEADER];
  if (!cookie || typeof header !== 'string' || header === '') return false;
  return timingSafeEqual(secretDigest(cookie), secretDigest(header));
}

/**
 * A request the browser sent with our cookie may have been made by another site's page. One
 * that changes something passes with DeerFlow's double-submit token, or from a page of our own
 * origin (Origin, else Referer); a WebSocket upgrade (a GET, whose first message starts a run)
 * is refused when its Origin names another site.
 */
function refuseCrossSite(request: FastifyRequest, origins: RequestOrigins): void {
  const upgrade = request.headers.upgrade?.toLowerCase() === 'websocket';
  if (!STATE_CHANGING.has(request.method) && !upgrade) return;
  if (upgrade) {
    if (origins.sameOrigin(request) === false) throw new CrossSiteRefusedError('Cross-site request refused: this WebSocket comes from a page of another origin.');
    return;
  }
  if (csrfTokenMatches(request) || origins.sameOrigin(request) === true) return;
  throw new CrossSiteRefusedError('Cross-site request refused: send the csrf_token cookie\'s value as the X-CSRF-Token header.');
}

/**
 * The deployment's authenticator with sessions in front: a request that presents an API key or
 * a bearer token is the base's to judge; one that presents only the session cookie is a signed-in
 * person; one with neither is refused, since with accounts on nobody is anonymous.
 */
export function withSessions(base: Authenticator, sessions: Sessions, origins: RequestOrigins): Authenticator {
  return {
    required: true,
    policy: base.policy,
    async authenticate(request) {
      if (presentedCredential(request) === null) {
        const token = readCookie(request.headers.cookie, SESSION_COOKIE);
        if (token !== undefined && token !== '') {
          const identity = await sessions.verify(token);
          refuseCrossSite(request, origins);
          return identity;
        }
        if (!base.required) throw new CredentialsMissingError('Not signed in: sign in (POST /api/v1/auth/login/local), or send an API key or a token.');
      }
      return base.authenticate(request);
    },
  };
}
