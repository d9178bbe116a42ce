// Every route whose path names a record (`:thread_id`, `:run_id`, `:assistant_id`, `:cron_id`) is
// checked here, once, before its handler and before a WebSocket upgrade: another user's record
// answers 404 whatever the route. Routes that change the deployment itself (MCP servers, skills,
// channel connections) say `config: {admin: true}` and answer 403 to a user who is not an admin:
// they name no one's record, so there is nothing to hide.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAdmin } from '../../auth/identity.js';
import type { AccessAction } from '../../auth/access.js';
import { AdminRequiredError } from '../../auth/auth.errors.js';
import type { RecordAccess } from '../../auth/record-access.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Changes the deployment's own configuration: admins only. */
    admin?: boolean;
  }
}

/** What a route does to the record it names, in LangGraph's action names (custom auth handlers are keyed by them). */
export function actionOf(request: FastifyRequest): AccessAction {
  const route = request.routeOptions.url ?? '';
  // Starting a run on a thread (a POST, or the first message of a WebSocket) is LangGraph's `create_run`.
  if (/\/runs(\/stream|\/wait|\/crons)?$/.test(route) && (request.method === 'POST' || request.headers.upgrade !== undefined)) return 'create_run';
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      return 'read';
    case 'DELETE':
      return 'delete';
    case 'POST':
      // Reads that take a body.
      if (/\/(history|copy|search|state\/checkpoint|versions)$/.test(route)) return 'read';
      return 'update';
    default:
      return 'update';
  }
}

export function registerRecordGate(app: FastifyInstance, access: RecordAccess): void {
  const checks = Object.entries(access.byParam);
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.routeOptions.config.admin === true && !isAdmin(request.identity)) {
      throw new AdminRequiredError(`${request.method} ${request.routeOptions.url} changes the deployment's configuration: it needs an admin.`);
    }
    const params = request.params as Record<string, unknown> | undefined;
    if (!params) return;
    for (const [param, check] of checks) {
      const id = params[param];
      if (typeof id === 'string') await check(request.identity, id, actionOf(request));
    }
  });
}
