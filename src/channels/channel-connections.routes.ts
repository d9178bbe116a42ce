// DeerFlow's Channels settings: the platforms (/providers), the caller's connections, a connect
// code for a chat account, and an admin's credentials for a platform (/runtime-config).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  ChannelConnectionsSchema,
  ChannelConnectSchema,
  ChannelProviderSchema,
  ChannelProvidersSchema,
  ConnectionParamsSchema,
  ProviderParamsSchema,
  RuntimeConfigBodySchema,
} from './channel-connections.schemas.js';
import type { ChannelConnectionsService } from './channel-connections.service.js';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';

const tags = ['channels'];
const refusals = { ...errorResponses, 403: ErrorSchema, 409: ErrorSchema } as const;

export async function channelConnectionRoutes(app: FastifyInstance, deps: { connections: ChannelConnectionsService }): Promise<void> {
  const { connections } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/channels/providers', { schema: { tags, response: { 200: ChannelProvidersSchema } } }, async (req) => connections.providers(req.identity));

  r.get('/channels/connections', { schema: { tags, response: { 200: ChannelConnectionsSchema } } }, async (req) => connections.connections(req.identity));

  r.delete('/channels/connections/:connection_id', { schema: { tags, params: ConnectionParamsSchema, response: { 204: Type.Null(), ...refusals } } }, async (req, reply) => {
    await connections.disconnect(req.identity, req.params.connection_id);
    return reply.code(204).send(null);
  });

  r.post('/channels/:provider/connect', { schema: { tags, params: ProviderParamsSchema, response: { 200: ChannelConnectSchema, 429: ErrorSchema, ...refusals } } }, async (req) =>
    connections.connect(req.identity, req.params.provider),
  );

  r.post(
    '/channels/:provider/runtime-config',
    { config: { admin: true }, schema: { tags, params: ProviderParamsSchema, body: RuntimeConfigBodySchema, response: { 200: ChannelProviderSchema, ...refusals } } },
    async (req) => connections.saveRuntimeConfig(req.identity, req.params.provider, req.body.values),
  );

  r.delete(
    '/channels/:provider/runtime-config',
    { config: { admin: true }, schema: { tags, params: ProviderParamsSchema, response: { 200: ChannelProviderSchema, ...refusals } } },
    async (req) => connections.deleteRuntimeConfig(req.identity, req.params.provider),
  );
}
