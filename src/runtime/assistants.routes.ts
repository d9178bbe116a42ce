// /api/langgraph/assistants: each configured graph's system assistant (its id is the graph id,
// read-only) and the assistants clients create, with their versions.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  AssistantCountSchema,
  AssistantCreateSchema,
  AssistantLatestSchema,
  AssistantParamsSchema,
  AssistantPatchSchema,
  AssistantSchema,
  AssistantSearchSchema,
  AssistantVersionSchema,
  AssistantVersionsQuerySchema,
  DeleteQuerySchema,
  GraphQuerySchema,
  GraphSchemasSchema,
  isTrue,
  SubgraphParamsSchema,
  SubgraphsQuerySchema,
  SubgraphsSchema,
  type GraphQuery,
} from './assistants.schemas.js';
import type { AssistantsService } from './assistants.service.js';
import { errorResponses, JsonObjectSchema, noContentResponses } from './common.schemas.js';

const tags = ['assistants'];

/** `xray`: a boolean, or the depth of subgraphs to draw. */
function xrayOf(xray: GraphQuery['xray']): boolean | number {
  if (typeof xray === 'number' || typeof xray === 'boolean') return xray;
  if (xray === undefined || xray === 'false' || xray === '0') return false;
  if (xray === 'true' || xray === '1') return true;
  return Number(xray);
}

export async function assistantRoutes(app: FastifyInstance, deps: { assistants: AssistantsService }): Promise<void> {
  const { assistants } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const byId = { tags, params: AssistantParamsSchema };

  r.post('/assistants', { schema: { tags, body: AssistantCreateSchema, response: { 200: AssistantSchema, ...errorResponses } } }, (req) =>
    assistants.create(req.body, req.identity),
  );

  r.post(
    '/assistants/search',
    { schema: { tags, body: AssistantSearchSchema, response: { 200: Type.Array(Type.Partial(AssistantSchema)), ...errorResponses } } },
    async (req, reply) => {
      const { assistants: found, total } = await assistants.search(req.body ?? { limit: 10, offset: 0 }, req.identity);
      void reply.header('X-Pagination-Total', String(total));
      return found;
    },
  );

  r.post('/assistants/count', { schema: { tags, body: AssistantCountSchema, response: { 200: Type.Integer(), ...errorResponses } } }, (req) =>
    assistants.count(req.body ?? {}, req.identity),
  );

  r.get('/assistants/:assistant_id', { schema: { ...byId, response: { 200: AssistantSchema, ...errorResponses } } }, (req) => assistants.get(req.params.assistant_id));

  r.patch('/assistants/:assistant_id', { schema: { ...byId, body: AssistantPatchSchema, response: { 200: AssistantSchema, ...errorResponses } } }, (req) =>
    assistants.patch(req.params.assistant_id, req.body ?? {}),
  );

  r.delete('/assistants/:assistant_id', { schema: { ...byId, querystring: DeleteQuerySchema, response: { ...noContentResponses, ...errorResponses } } }, async (req, reply) => {
    await assistants.remove(req.params.assistant_id, isTrue(req.query.delete_threads), req.identity);
    return reply.code(204).send(null);
  });

  r.post(
    '/assistants/:assistant_id/versions',
    { schema: { ...byId, body: AssistantVersionsQuerySchema, response: { 200: Type.Array(AssistantVersionSchema), ...errorResponses } } },
    (req) => assistants.versions(req.params.assistant_id, req.body ?? { limit: 10, offset: 0 }),
  );

  r.post('/assistants/:assistant_id/latest', { schema: { ...byId, body: AssistantLatestSchema, response: { 200: AssistantSchema, ...errorResponses } } }, (req) =>
    assistants.setLatest(req.params.assistant_id, req.body.version),
  );

  r.get('/assistants/:assistant_id/schemas', { schema: { ...byId, response: { 200: GraphSchemasSchema, ...errorResponses } } }, (req) =>
    assistants.schemas(req.params.assistant_id),
  );

  r.get(
    '/assistants/:assistant_id/graph',
    { schema: { ...byId, querystring: GraphQuerySchema, response: { 200: JsonObjectSchema, ...errorResponses } } },
    (req) => assistants.drawable(req.params.assistant_id, xrayOf(req.query.xray)),
  );

  r.get(
    '/assistants/:assistant_id/subgraphs',
    { schema: { ...byId, querystring: SubgraphsQuerySchema, response: { 200: SubgraphsSchema, ...errorResponses } } },
    (req) => assistants.subgraphs(req.params.assistant_id, undefined, isTrue(req.query.recurse)),
  );

  r.get(
    '/assistants/:assistant_id/subgraphs/:namespace',
    { schema: { tags, params: SubgraphParamsSchema, querystring: SubgraphsQuerySchema, response: { 200: SubgraphsSchema, ...errorResponses } } },
    (req) => assistants.subgraphs(req.params.assistant_id, req.params.namespace, isTrue(req.query.recurse)),
  );
}
