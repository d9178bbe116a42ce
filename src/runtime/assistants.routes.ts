// /api/langgraph/assistants: one system assistant per configured graph; its id is the graph id.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../errors.js';
import { matchesFilter } from '../store/json.js';
import { AssistantParamsSchema, AssistantSchema, AssistantSearchSchema, GraphQuerySchema, type Assistant } from './assistants.schemas.js';
import { errorResponses, JsonObjectSchema } from './common.schemas.js';
import type { GraphRegistry } from '../../graphs/registry.js';

const tags = ['assistants'];

export interface AssistantRoutesDeps {
  graphs: Pick<GraphRegistry, 'has' | 'ids' | 'load'>;
}

export async function assistantRoutes(app: FastifyInstance, deps: AssistantRoutesDeps): Promise<void> {
  const bootedAt = new Date().toISOString();
  const assistantOf = (graphId: string): Assistant => ({
    assistant_id: graphId,
    graph_id: graphId,
    name: graphId,
    description: null,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    version: 1,
    created_at: bootedAt,
    updated_at: bootedAt,
  });
  const requireAssistant = (id: string) => {
    if (!deps.graphs.has(id)) throw new NotFoundError(`Assistant ${id} not found`);
    return assistantOf(id);
  };
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/assistants/search',
    { schema: { tags, body: AssistantSearchSchema, response: { 200: Type.Array(AssistantSchema), ...errorResponses } } },
    async (req, reply) => {
      const body = req.body ?? { limit: 10, offset: 0 };
      const all = deps.graphs
        .ids()
        .map(assistantOf)
        .filter((a) => (!body.graph_id || a.graph_id === body.graph_id) && (!body.name || a.name === body.name))
        .filter((a) => !body.metadata || matchesFilter(a.metadata, body.metadata));
      void reply.header('X-Pagination-Total', String(all.length));
      return all.slice(body.offset, body.offset + body.limit);
    },
  );

  r.get('/assistants/:assistant_id', { schema: { tags, params: AssistantParamsSchema, response: { 200: AssistantSchema, ...errorResponses } } }, (req) =>
    requireAssistant(req.params.assistant_id),
  );

  r.get(
    '/assistants/:assistant_id/graph',
    { schema: { tags, params: AssistantParamsSchema, querystring: GraphQuerySchema, response: { 200: JsonObjectSchema, ...errorResponses } } },
    async (req) => {
      requireAssistant(req.params.assistant_id);
      const graph = await deps.graphs.load(req.params.assistant_id);
      // Pregel's own signature omits `xray`, which its graphs honour.
      const getGraph = graph.getGraphAsync.bind(graph) as (config: { xray?: boolean | number }) => ReturnType<typeof graph.getGraphAsync>;
      const drawable = await getGraph({ xray: req.query.xray ?? false });
      return drawable.toJSON() as Record<string, unknown>;
    },
  );
}
