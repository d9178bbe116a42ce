// POST /api/input-polish: the user's draft, rewritten by the model (DeerFlow's polish button).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';
import { InputPolishBodySchema, InputPolishSchema } from './input-polish.schemas.js';
import type { InputPolishService } from './input-polish.service.js';

const tags = ['input-polish'];

export async function inputPolishRoutes(app: FastifyInstance, deps: { inputPolish: InputPolishService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/input-polish',
    {
      schema: {
        tags,
        description: 'The draft rewritten by the model; `changed` says whether it differs from the draft as sent (trimmed).',
        body: InputPolishBodySchema,
        response: { 200: InputPolishSchema, ...errorResponses, 503: ErrorSchema },
      },
    },
    async (req) => deps.inputPolish.polish(req.body),
  );
}
