// Optional API keys. With keys configured, every route answers 401 {detail} unless the request
// carries one, as `x-api-key` (what the LangGraph SDK sends) or `Authorization: Bearer <key>`.
// A route opts out through its own config (`config: { public: true }`), never by URL: a prefix
// test is one encoding trick away from a bypass. The check is an onRequest hook, which
// @fastify/websocket runs before it upgrades, so a WebSocket without a key gets a plain 401 and
// never a socket.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS } from '../../auth/identity.js';
import { ConfigError, UnauthorizedError } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without an API key (liveness probes). */
    public?: boolean;
  }
}

export interface AuthOptions {
  /** Accepted keys; empty turns authentication off. */
  apiKeys: readonly string[];
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/** The key a request presents, or null. `x-api-key` wins when both are sent. */
export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const authorization = request.headers.authorization;
  return (typeof authorization === 'string' && BEARER.exec(authorization)?.[1]) || null;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * A matcher that takes as long for a wrong key as for a right one. Comparing fixed-length
 * digests hides the key's length, and every configured key is compared, with no early exit, so
 * the time does not tell which key (if any) nearly matched.
 */
export function createKeyMatcher(apiKeys: readonly string[]): (candidate: string) => boolean {
  const expected = apiKeys.map(digest);
  return (candidate) => {
    const given = digest(candidate);
    let found = false;
    for (const key of expected) found = timingSafeEqual(key, given) || found;
    return found;
  };
}

export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  // Every request acts for someone; until an authenticator says otherwise, the anonymous admin.
  app.decorateRequest('identity', null as never);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    request.identity = ANONYMOUS;
  });
  if (options.apiKeys.length === 0) return;
  // The config schemas check keys already; this guards other callers of buildApp, at boot.
  if (options.apiKeys.some((key) => key.length === 0)) throw new ConfigError('An API key is empty.');
  const matches = createKeyMatcher(options.apiKeys);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config.public === true) return;
    const key = presentedKey(request);
    if (key !== null && matches(key)) return;
    void reply.header('www-authenticate', 'Bearer');
    throw new UnauthorizedError(
      key === null ? 'Missing API key: send it as the x-api-key header or as Authorization: Bearer <key>.' : 'Invalid API key.',
    );
  });
}
