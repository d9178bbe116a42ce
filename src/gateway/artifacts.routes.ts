// GET /api/threads/{thread_id}/artifacts/{path}: a thread's file, streamed, with Range support.
// Every answer, errors included, carries X-Content-Type-Options: nosniff.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ArtifactParamsSchema, ArtifactQuerySchema } from './artifacts.schemas.js';
import { parseRange, type ArtifactsService } from './artifacts.service.js';
import { ErrorSchema, errorResponses } from './common.schemas.js';

const tags = ['artifacts'];
// Typed as the stream the handler sends; documented as binary.
const fileResponse = Type.Unsafe<ReadStream | null>({
  description: 'The file, or the requested byte range (206).',
  type: 'string',
  format: 'binary',
});

export async function artifactRoutes(app: FastifyInstance, deps: { artifacts: ArtifactsService }): Promise<void> {
  const { artifacts } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // GET and HEAD declared together: Fastify's automatic HEAD would read the whole file and drop it.
  r.route({
    method: ['GET', 'HEAD'],
    url: '/threads/:thread_id/artifacts/*',
    schema: {
      tags,
      params: ArtifactParamsSchema,
      querystring: ArtifactQuerySchema,
      response: { 200: fileResponse, 206: fileResponse, 403: ErrorSchema, 416: ErrorSchema, ...errorResponses },
    },
    onSend: async (_req, reply, payload) => {
      void reply.header('x-content-type-options', 'nosniff');
      return payload;
    },
    handler: async (req, reply) => {
      const artifact = await artifacts.get(req.params.thread_id, req.params['*'], req.query.download === true);
      const range = parseRange(req.headers.range, artifact.size);
      if (range === 'unsatisfiable') {
        void reply.code(416).header('content-range', `bytes */${artifact.size}`);
        return reply.send({ detail: `The requested range is outside the file (${artifact.size} bytes).` });
      }
      void reply.headers(artifact.headers);
      if (range) void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${artifact.size}`);
      void reply.header('content-length', range ? range.end - range.start + 1 : artifact.size);
      // HEAD gets the headers only: the file is not even opened.
      if (req.method === 'HEAD') return reply.send(null);
      return reply.send(await artifact.open(range ?? undefined));
    },
  });
}
