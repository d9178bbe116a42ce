// POST /api/channels/slack/events: Slack's Events API. Public (Slack sends no API key; the
// signature is the check), and its body is read raw: the signature covers the bytes as sent.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';
import { SlackEventsHeadersSchema, SlackEventsReplySchema } from './slack-events.schemas.js';
import type { SlackEventsService } from './slack-events.service.js';

const tags = ['channels'];

export async function slackEventsRoutes(app: FastifyInstance, deps: { slackEvents: SlackEventsService }): Promise<void> {
  const { slackEvents } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // In this plugin's scope only: JSON arrives as the bytes Slack signed.
  r.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

  r.post(
    '/channels/slack/events',
    {
      config: { public: true },
      schema: {
        tags,
        summary: "Slack's Events API requests (signed), for channels.slack",
        // No API key: Slack cannot send one; the signature is the check.
        security: [],
        headers: SlackEventsHeadersSchema,
        response: { 200: SlackEventsReplySchema, 401: ErrorSchema, 415: ErrorSchema, ...errorResponses },
      },
    },
    async (req) => slackEvents.receive(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers['x-slack-signature'], req.headers['x-slack-request-timestamp']),
  );
}
