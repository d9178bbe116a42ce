// /api/skills: list, detail, enable, disable, install.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, lockedWriteResponses, SuccessSchema, writeErrorResponses } from './common.schemas.js';
import { SkillDetailSchema, SkillInstallResultSchema, SkillListSchema, SkillParamsSchema } from './skills.schemas.js';
import { MAX_SKILL_ARCHIVE_BYTES, type SkillsService } from './skills.service.js';

const tags = ['skills'];

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
      { schema: { tags, params: SkillParamsSchema, response: { 200: SuccessSchema, ...lockedWriteResponses } } },
      async (req) => skills.setEnabled(req.params.skill_name, action === 'enable'),
    );
  }

  r.post(
    '/skills/install',
    {
      schema: {
        tags,
        consumes: ['multipart/form-data'],
        description: 'Installs a `.skill` archive (a zip) sent as the multipart part `file`.',
        response: { 200: SkillInstallResultSchema, 409: ErrorSchema, ...writeErrorResponses },
      },
    },
    async (req) => skills.install(await req.file({ limits: { fileSize: MAX_SKILL_ARCHIVE_BYTES, files: 1 }, throwFileSizeLimit: false })),
  );
}
