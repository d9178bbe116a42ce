// /api/memory: the user's memory, its facts, export and import, settings and status.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';
import {
  FactCreateSchema,
  FactParamsSchema,
  FactPatchSchema,
  MemoryImportSchema,
  MemorySchema,
  MemorySettingsSchema,
  MemoryStatusSchema,
} from './memory.schemas.js';
import type { MemoryService } from './memory.service.js';

const tags = ['memory'];
const answers = { 200: MemorySchema, ...errorResponses };

export async function memoryRoutes(app: FastifyInstance, deps: { memory: MemoryService }): Promise<void> {
  const { memory } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/memory', { schema: { tags, response: answers } }, async (req) => memory.of(req.identity).get());

  r.delete('/memory', { schema: { tags, description: 'Forgets everything; answers the empty memory.', response: answers } }, async (req) => memory.of(req.identity).clear());

  r.post(
    '/memory/facts',
    { schema: { tags, body: FactCreateSchema, response: { ...answers, 409: ErrorSchema } } },
    async (req) => memory.of(req.identity).addFact(req.body),
  );

  r.patch(
    '/memory/facts/:fact_id',
    { schema: { tags, params: FactParamsSchema, body: FactPatchSchema, response: { ...answers, 409: ErrorSchema } } },
    async (req) => memory.of(req.identity).patchFact(req.params.fact_id, req.body),
  );

  r.delete('/memory/facts/:fact_id', { schema: { tags, params: FactParamsSchema, response: answers } }, async (req) => memory.of(req.identity).removeFact(req.params.fact_id));

  r.get('/memory/export', { schema: { tags, response: answers } }, async (req) => memory.of(req.identity).get());

  r.post(
    '/memory/import',
    { schema: { tags, description: 'Replaces the memory with the one sent.', body: MemoryImportSchema, response: answers } },
    async (req) => memory.of(req.identity).import(req.body),
  );

  r.get('/memory/config', { schema: { tags, response: { 200: MemorySettingsSchema } } }, async (req) => memory.of(req.identity).settings());

  r.get('/memory/status', { schema: { tags, response: { 200: MemoryStatusSchema } } }, async (req) => memory.of(req.identity).status());
}
