// /api/threads/{thread_id}/uploads: upload (multipart `files`), list, delete, and the limits a UI checks first.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, lockedWriteResponses, SuccessSchema, ThreadParamsSchema } from '../gateway/common.schemas.js';
import { multipartOptions } from './upload-receiver.js';
import { UploadResultSchema } from './upload-result.schemas.js';
import { UploadFileParamsSchema, UploadLimitsSchema, UploadListSchema } from './uploads.schemas.js';
import type { UploadLimits } from '../gateway/gateway-deps.js';
import type { UploadsService } from './uploads.service.js';

const tags = ['uploads'];

export async function uploadRoutes(app: FastifyInstance, deps: { uploads: UploadsService; limits: UploadLimits }): Promise<void> {
  const { uploads } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { limits } = deps;

  r.post(
    '/threads/:thread_id/uploads',
    {
      schema: {
        tags,
        consumes: ['multipart/form-data'],
        description: `Multipart part \`files\`, one or more. At most ${limits.maxFiles} files, ${limits.maxFileBytes} bytes each, ${limits.maxRequestBytes} in all (413 beyond). A body the multipart parser cannot read is a 400 saying why.`,
        params: ThreadParamsSchema,
        response: { 200: UploadResultSchema, 413: ErrorSchema, 415: ErrorSchema, ...lockedWriteResponses },
      },
    },
    async (req) => uploads.upload(req.params.thread_id, req.parts(multipartOptions(limits)), req.identity),
  );

  r.get(
    '/threads/:thread_id/uploads/list',
    { schema: { tags, params: ThreadParamsSchema, response: { 200: UploadListSchema, ...errorResponses } } },
    async (req) => uploads.list(req.params.thread_id),
  );

  r.get(
    '/threads/:thread_id/uploads/limits',
    // The thread need not exist: DeerFlow's UI asks before the first upload makes it.
    { schema: { tags, params: ThreadParamsSchema, response: { 200: UploadLimitsSchema, ...errorResponses } } },
    async () => uploads.limits(),
  );

  r.delete(
    '/threads/:thread_id/uploads/:filename',
    { schema: { tags, params: UploadFileParamsSchema, response: { 200: SuccessSchema, 403: ErrorSchema, ...lockedWriteResponses } } },
    async (req) => uploads.remove(req.params.thread_id, req.params.filename),
  );
}
