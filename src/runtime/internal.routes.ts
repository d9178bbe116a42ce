// /api/langgraph/internal: dev mode's truncate. Registered only when config.yaml says `dev: true`,
// and an admin's (every caller is one while authentication is off).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from './common.schemas.js';
import type { TruncateService } from './truncate.service.js';
import { TruncateResultSchema, TruncateSchema } from './truncate.schemas.js';

export async function internalRoutes(app: FastifyInstance, deps: { truncate: TruncateService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/internal/truncate',
    { config: { admin: true }, schema: { tags: ['internal'], body: TruncateSchema, response: { 200: TruncateResultSchema, ...errorResponses } } },
    async (req) => {
      await deps.truncate.truncate(req.body ?? {});
      return { ok: true as const };
    },
  );
}
