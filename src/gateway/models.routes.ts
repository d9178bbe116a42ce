// /api/models: the configured models, and one model's detail.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from './common.schemas.js';
import { ModelDetailSchema, ModelListSchema, ModelParamsSchema } from './models.schemas.js';
import type { ModelsService } from './models.service.js';

const tags = ['models'];

export async function modelRoutes(app: FastifyInstance, deps: { models: ModelsService }): Promise<void> {
  const { models } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/models', { schema: { tags, response: { 200: ModelListSchema } } }, async () => models.list());

  r.get(
    '/models/:model_name',
    { schema: { tags, params: ModelParamsSchema, response: { 200: ModelDetailSchema, ...errorResponses } } },
    async (req) => models.get(req.params.model_name),
  );
}
