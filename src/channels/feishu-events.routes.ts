// POST /api/channels/feishu/events: Feishu's HTTP event callback. Once switched on
// (channels.feishu.mode `events` or `both`) it is public, as Feishu sends no API key: the
// verification token and, with an encrypt_key, the signature stand in for one. Switched off, it
// is like any route (and answers 404). The body is read as text: the signature covers its bytes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';
import { FeishuEventBodySchema, FeishuEventHeadersSchema, FeishuEventReplySchema } from './feishu-events.schemas.js';
import type { FeishuEventsService } from './feishu-events.service.js';

export async function feishuEventRoutes(app: FastifyInstance, deps: { feishuEvents: FeishuEventsService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // This plugin's own JSON parser (encapsulated: other routes keep theirs).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  r.post(
    '/channels/feishu/events',
    {
      config: { public: deps.feishuEvents.open },
      schema: {
        tags: ['channels'],
        body: FeishuEventBodySchema,
        headers: FeishuEventHeadersSchema,
        response: { 200: FeishuEventReplySchema, 401: ErrorSchema, ...errorResponses },
      },
    },
    async (req) => deps.feishuEvents.receive(req.body, req.headers),
  );
}
