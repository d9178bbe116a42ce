// /api/langgraph crons: create on a thread or stateless, search, count, patch, delete.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, noContentResponses, ThreadParamsSchema } from '../runtime/common.schemas.js';
import {
  CronCountSchema,
  CronCreateSchema,
  CronListSchema,
  CronParamsSchema,
  CronPatchSchema,
  CronSchema,
  CronSearchSchema,
} from './crons.schemas.js';
import type { CronsService } from './crons.service.js';

const tags = ['crons'];
const cronResponse = { 200: CronSchema, ...errorResponses };

export async function cronRoutes(app: FastifyInstance, deps: { crons: CronsService }): Promise<void> {
  const { crons } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/threads/:thread_id/runs/crons', { schema: { tags, params: ThreadParamsSchema, body: CronCreateSchema, response: cronResponse } }, (req) =>
    crons.create(req.params.thread_id, req.body, req.identity),
  );

  r.post('/runs/crons', { schema: { tags, body: CronCreateSchema, response: cronResponse } }, (req) => crons.create(null, req.body, req.identity));

  r.post('/runs/crons/search', { schema: { tags, body: CronSearchSchema, response: { 200: CronListSchema, ...errorResponses } } }, (req) =>
    crons.search(req.body, req.identity),
  );

  r.post('/runs/crons/count', { schema: { tags, body: CronCountSchema, response: { 200: Type.Integer(), ...errorResponses } } }, (req) =>
    crons.count(req.body, req.identity),
  );

  r.patch('/runs/crons/:cron_id', { schema: { tags, params: CronParamsSchema, body: CronPatchSchema, response: cronResponse } }, (req) =>
    crons.update(req.params.cron_id, req.body, req.identity),
  );

  r.delete(
    '/runs/crons/:cron_id',
    { schema: { tags, params: CronParamsSchema, response: { ...noContentResponses, ...errorResponses } } },
    async (req, reply) => {
      await crons.remove(req.params.cron_id);
      return reply.code(204).send(null);
    },
  );
}
