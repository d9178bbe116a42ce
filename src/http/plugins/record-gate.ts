// Every route whose path names a record (`:thread_id`, `:assistant_id`, `:cron_id`) is checked
// here, once, before its handler and before a WebSocket upgrade: another user's record answers
// 404 whatever the route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RecordAccess } from '../../auth/record-access.js';

export function registerRecordGate(app: FastifyInstance, access: RecordAccess): void {
  const checks = Object.entries(access.byParam);
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (!params) return;
    for (const [param, check] of checks) {
      const id = params[param];
      if (typeof id === 'string') await check(request.identity, id);
    }
  });
}
