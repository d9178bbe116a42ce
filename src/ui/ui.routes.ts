// `/ui/{graph}`, registered at the server root and under /api/langgraph (the SDK's `getComponent`
// posts to its own base URL). The snippet's URLs point under the prefix the request came in on,
// so a deployment that forwards only /api/ (deploy/nginx.conf) still serves the files.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../runtime/common.schemas.js';
import type { UiService } from './ui.service.js';
import { UiComponentRequestSchema, UiFileParamsSchema, UiGraphParamsSchema } from './ui.schemas.js';

export async function uiRoutes(app: FastifyInstance, deps: { ui: UiService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const base = app.prefix;
  r.post(
    '/ui/:graph',
    {
      schema: {
        tags: ['ui'],
        params: UiGraphParamsSchema,
        body: UiComponentRequestSchema,
        response: { 200: { content: { 'text/html': { schema: Type.String() } } }, ...errorResponses },
      },
    },
    async (req, reply) => reply.type('text/html').send(deps.ui.snippet(req.params.graph, req.body.name, { host: req.host, base })),
  );
  r.get(
    '/ui/:graph/:file',
    // A <script src> and a <link href> carry no credentials: the files are public, as with
    // LangGraph's server (they are the project's code, not anyone's data).
    { config: { public: true }, schema: { tags: ['ui'], security: [], params: UiFileParamsSchema, response: { 200: Type.Unknown({ description: 'The file, as bundled.' }), ...errorResponses } } },
    async (req, reply) => {
      const file = deps.ui.file(req.params.graph, req.params.file);
      return reply.type(file.contentType).send(file.contents);
    },
  );
}
