// /api/agents: list, name check, create, get, update (PUT), delete.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  AgentCheckQuerySchema,
  AgentCheckSchema,
  AgentCreateSchema,
  AgentListSchema,
  AgentParamsSchema,
  AgentSchema,
  AgentUpdateSchema,
} from './agents.schemas.js';
import type { AgentsService } from './agents.service.js';
import { ErrorSchema, errorResponses, SuccessSchema } from '../gateway/common.schemas.js';

const tags = ['agents'];

export async function agentRoutes(app: FastifyInstance, deps: { agents: AgentsService }): Promise<void> {
  const { agents } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/agents', { schema: { tags, response: { 200: AgentListSchema } } }, async (req) => agents.list(req.identity));

  r.get(
    '/agents/check',
    { schema: { tags, querystring: AgentCheckQuerySchema, response: { 200: AgentCheckSchema, ...errorResponses } } },
    async (req) => agents.check(req.query.name),
  );

  r.post(
    '/agents',
    { schema: { tags, body: AgentCreateSchema, response: { 201: AgentSchema, 409: ErrorSchema, ...errorResponses } } },
    async (req, reply) => reply.code(201).send(await agents.create(req.body, req.identity)),
  );

  r.get(
    '/agents/:name',
    { schema: { tags, params: AgentParamsSchema, response: { 200: AgentSchema, ...errorResponses } } },
    async (req) => agents.get(req.params.name, req.identity),
  );

  r.put(
    '/agents/:name',
    { schema: { tags, params: AgentParamsSchema, body: AgentUpdateSchema, response: { 200: AgentSchema, ...errorResponses } } },
    async (req) => agents.update(req.params.name, req.body, req.identity),
  );

  r.delete(
    '/agents/:name',
    { schema: { tags, params: AgentParamsSchema, response: { 200: SuccessSchema, ...errorResponses } } },
    async (req) => agents.remove(req.params.name, req.identity),
  );
}
