// DeerFlow's assistants compatibility routes under /api (what the useStream hook asks for when it
// starts): search, get, graph and schemas, in DeerFlow's shapes (deerflow-assistants.service.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AssistantSearchSchema, GraphSchemasSchema } from '../runtime/assistants.schemas.js';
import { errorResponses } from './common.schemas.js';
import { AssistantIdParamsSchema, DfAssistantListSchema, DfAssistantSchema, DfGraphSchema } from './deerflow-assistants.schemas.js';
import type { DeerFlowAssistantsService } from './deerflow-assistants.service.js';

const tags = ['assistants'];

export async function deerflowAssistantRoutes(app: FastifyInstance, deps: { dfAssistants: DeerFlowAssistantsService }): Promise<void> {
  const { dfAssistants } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const byId = { tags, params: AssistantIdParamsSchema };

  r.post('/assistants/search', { schema: { tags, body: AssistantSearchSchema, response: { 200: DfAssistantListSchema, ...errorResponses } } }, async (req) =>
    dfAssistants.search(req.body ?? { limit: 10, offset: 0 }, req.identity),
  );

  r.get('/assistants/:assistant_id', { schema: { ...byId, response: { 200: DfAssistantSchema, ...errorResponses } } }, async (req) =>
    dfAssistants.get(req.params.assistant_id, req.identity),
  );

  r.get('/assistants/:assistant_id/graph', { schema: { ...byId, response: { 200: DfGraphSchema, ...errorResponses } } }, async (req) =>
    dfAssistants.graph(req.params.assistant_id, req.identity),
  );

  r.get('/assistants/:assistant_id/schemas', { schema: { ...byId, response: { 200: GraphSchemasSchema, ...errorResponses } } }, async (req) =>
    dfAssistants.schemas(req.params.assistant_id, req.identity),
  );
}
