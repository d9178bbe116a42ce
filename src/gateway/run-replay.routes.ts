// DeerFlow's POST /api/threads/{thread_id}/runs/regenerate/prepare and
// …/runs/edit-regenerate/prepare (run-replay.service.ts). The record gate has refused another
// user's thread (404).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from './common.schemas.js';
import {
  EditRegeneratePrepareBodySchema,
  EditRegeneratePrepareSchema,
  RegeneratePrepareBodySchema,
  RegeneratePrepareSchema,
} from './run-replay.schemas.js';
import type { RunReplayService } from './run-replay.service.js';

const tags = ['runs'];

export async function runReplayRoutes(app: FastifyInstance, deps: { replay: RunReplayService }): Promise<void> {
  const { replay } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/threads/:thread_id/runs/regenerate/prepare',
    { schema: { tags, params: ThreadParamsSchema, body: RegeneratePrepareBodySchema, response: { 200: RegeneratePrepareSchema, ...errorResponses, 409: ErrorSchema } } },
    async (req) => replay.regenerate(req.params.thread_id, req.body),
  );
  r.post(
    '/threads/:thread_id/runs/edit-regenerate/prepare',
    {
      schema: { tags, params: ThreadParamsSchema, body: EditRegeneratePrepareBodySchema, response: { 200: EditRegeneratePrepareSchema, ...errorResponses, 409: ErrorSchema } },
    },
    async (req) => replay.editRegenerate(req.params.thread_id, req.body),
  );
}
