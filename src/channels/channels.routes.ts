// /api/channels: each chat platform's status, and a restart of its connection.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ChannelListSchema, ChannelParamsSchema, ChannelRestartReplySchema } from './channels.schemas.js';
import type { ChannelsService } from './channels.service.js';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';

const tags = ['channels'];

export async function channelRoutes(app: FastifyInstance, deps: { channels: ChannelsService }): Promise<void> {
  const { channels } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/channels', { schema: { tags, response: { 200: ChannelListSchema } } }, async () => channels.list());

  r.post(
    '/channels/:name/restart',
    { config: { admin: true }, schema: { tags, params: ChannelParamsSchema, response: { 202: ChannelRestartReplySchema, 403: ErrorSchema, 409: ErrorSchema, ...errorResponses } } },
    async (req, reply) => reply.code(202).send(await channels.restart(req.params.name)),
  );
}
