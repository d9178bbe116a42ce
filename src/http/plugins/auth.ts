// Authentication as an onRequest hook: it sets `request.identity` on every request, from what
// src/auth/authenticator.ts makes of its credentials (API keys, a JWT, or a custom auth module).
// With anything configured, every route answers 401 {detail} (or the module's status) unless the
// request authenticates. A route opts out through its own config (`config: { public: true }`),
// never by URL: a prefix test is one encoding trick away from a bypass. @fastify/websocket runs
// onRequest hooks before it upgrades, so a refused WebSocket gets a plain 401 and never a socket.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { ANONYMOUS, type Identity } from '../../auth/identity.js';
import { isWarrenError } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without credentials (liveness probes), and never rate-limited. */
    public?: boolean;
  }
}

/**
 * `handedOver`: the identity a request already authenticated as, when it is Warren's own
 * continuation of an earlier request (a project's middleware passing a request on to Warren's
 * routes): it is not authenticated a second time.
 */
export function registerAuth(app: FastifyInstance, authenticator: Authenticator, handedOver?: (request: FastifyRequest) => Identity | undefined): void {
  // Every request acts for someone; until an authenticator says otherwise, the anonymous admin.
  app.decorateRequest('identity', null as never);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const inherited = handedOver?.(request);
    if (inherited) {
      request.identity = inherited;
      return;
    }
    request.identity = ANONYMOUS;
    if (!authenticator.required || request.routeOptions.config.public === true) return;
    try {
      request.identity = await authenticator.authenticate(request);
    } catch (err) {
      if (isWarrenError(err) && err.statusCode === 401 && !reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', 'Bearer');
      throw err;
    }
  });
}
