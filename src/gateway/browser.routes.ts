// DeerFlow's live browser control and GitHub webhooks, which Warren does not run: GET
// /api/features says `browser_control: false` and `github_webhooks: false`, and these routes
// answer as DeerFlow's do when the feature is off. `POST /threads/{id}/browser/navigate` checks
// its body (422) and then answers 404 "Browser automation is not enabled"; the live stream's
// WebSocket is closed with DeerFlow's code 4404 and that reason; `POST /webhooks/github` is not
// mounted in DeerFlow without a secret, so it answers FastAPI's own 404 `{"detail": "Not Found"}`.
// The record gate has already answered 404 for another user's thread, as DeerFlow's owner check does.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { Type } from 'typebox';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from './common.schemas.js';
import { BrowserDisabledError, GithubWebhooksDisabledError } from './gateway.errors.js';

export const BROWSER_DISABLED = 'Browser automation is not enabled';
/** DeerFlow's close code for a live stream it will not serve (an unknown thread, or the browser off). */
export const BROWSER_CLOSE_CODE = 4404;

/** DeerFlow's BrowserNavigateRequest: the UI sends `{url}`. */
const NavigateBodySchema = Type.Object({ url: Type.String({ maxLength: 8192 }) });

export async function disabledFeatureRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/threads/:thread_id/browser/navigate',
    { schema: { tags: ['browser'], description: 'Answers 404: Warren runs no live browser.', params: ThreadParamsSchema, body: NavigateBodySchema, response: errorResponses } },
    async () => {
      throw new BrowserDisabledError(BROWSER_DISABLED);
    },
  );

  app.get(
    '/threads/:thread_id/browser/stream',
    { websocket: true, schema: { tags: ['browser'], params: ThreadParamsSchema, hide: true } },
    (socket: WebSocket) => socket.close(BROWSER_CLOSE_CODE, BROWSER_DISABLED),
  );

  r.post(
    '/webhooks/github',
    { schema: { tags: ['webhooks'], description: 'Answers 404: Warren takes no GitHub webhook deliveries.', response: { 404: ErrorSchema } } },
    async () => {
      throw new GithubWebhooksDisabledError('Not Found');
    },
  );
}
