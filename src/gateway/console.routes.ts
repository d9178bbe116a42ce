// DeerFlow's operations console: GET /api/console/stats, /runs and /usage, over the caller's
// threads and runs (console.service.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from './common.schemas.js';
import { ConsoleRunsQuerySchema, ConsoleRunsSchema, ConsoleStatsSchema, ConsoleUsageQuerySchema, ConsoleUsageSchema } from './console.schemas.js';
import type { ConsoleService } from './console.service.js';

const tags = ['console'];

export async function consoleRoutes(app: FastifyInstance, deps: { console: ConsoleService }): Promise<void> {
  const { console: ops } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/console/stats', { schema: { tags, response: { 200: ConsoleStatsSchema, ...errorResponses } } }, async (req) => ops.stats(req.identity));

  r.get('/console/runs', { schema: { tags, querystring: ConsoleRunsQuerySchema, response: { 200: ConsoleRunsSchema, ...errorResponses } } }, async (req) =>
    ops.runs(req.query, req.identity),
  );

  r.get('/console/usage', { schema: { tags, querystring: ConsoleUsageQuerySchema, response: { 200: ConsoleUsageSchema, ...errorResponses } } }, async (req) =>
    ops.usage(req.query, req.identity),
  );
}
