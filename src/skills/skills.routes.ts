// /api/skills: list, detail, enable, disable (or PUT {enabled}), install (multipart, or JSON naming a thread's file).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SkillInstallTypeUnsupportedError } from './skills.errors.js';
import { ErrorSchema, errorResponses, lockedWriteResponses, SuccessSchema, writeErrorResponses } from '../gateway/common.schemas.js';
import {
  SkillDetailSchema,
  SkillInstallFromThreadSchema,
  SkillInstallResultSchema,
  SkillListSchema,
  SkillParamsSchema,
  SkillSummarySchema,
  SkillUpdateSchema,
  type SkillInstallFromThread,
} from './skills.schemas.js';
import { MAX_SKILL_ARCHIVE_BYTES, type SkillsService } from './skills.service.js';

const tags = ['skills'];
const INSTALL_FORMS = 'Send the .skill archive as multipart/form-data in a part named "file", or JSON {thread_id, path} naming it among a thread\'s files.';

export async function skillRoutes(app: FastifyInstance, deps: { skills: SkillsService }): Promise<void> {
  const { skills } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/skills', { schema: { tags, response: { 200: SkillListSchema } } }, async () => skills.list());

  r.get(
    '/skills/:skill_name',
    { schema: { tags, params: SkillParamsSchema, response: { 200: SkillDetailSchema, ...errorResponses } } },
    async (req) => skills.get(req.params.skill_name),
  );

  for (const action of ['enable', 'disable'] as const) {
    r.post(
      `/skills/:skill_name/${action}`,
      { config: { admin: true }, schema: { tags, params: SkillParamsSchema, response: { 200: SuccessSchema, 403: ErrorSchema, ...lockedWriteResponses } } },
      async (req) => skills.setEnabled(req.params.skill_name, action === 'enable'),
    );
  }

  r.put(
    '/skills/:skill_name',
    { config: { admin: true }, schema: { tags, params: SkillParamsSchema, body: SkillUpdateSchema, response: { 200: SkillSummarySchema, 403: ErrorSchema, ...lockedWriteResponses } } },
    async (req) => skills.update(req.params.skill_name, req.body.enabled),
  );

  r.post(
    '/skills/install',
    {
      config: { admin: true },
      schema: {
        tags,
        description:
          'Installs a `.skill` archive (a zip): sent as the multipart part `file`, or named by JSON `{thread_id, path}` among that thread\'s files.',
        // Only the JSON form has a body schema; the multipart form is read as a stream.
        body: { content: { 'application/json': { schema: SkillInstallFromThreadSchema } } },
        response: { 200: SkillInstallResultSchema, 403: ErrorSchema, 409: ErrorSchema, ...writeErrorResponses },
      },
    },
    async (req) => {
      if (req.isMultipart()) return skills.install(await req.file({ limits: { fileSize: MAX_SKILL_ARCHIVE_BYTES, files: 1 }, throwFileSizeLimit: false }));
      // The schema above has checked a JSON body; any other kind never reached a validator.
      if (req.mediaType !== 'application/json') throw new SkillInstallTypeUnsupportedError(INSTALL_FORMS);
      return skills.installFromThread(req.body as SkillInstallFromThread);
    },
  );
}
