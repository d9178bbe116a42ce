// /api/skills/custom: DeerFlow's custom skill editor. The list is for everyone (as DeerFlow's);
// reading a skill's source, editing, deleting, its history and rollback are for admins, since
// skills are the deployment's, shared by every user.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, lockedWriteResponses } from '../gateway/common.schemas.js';
import type { CustomSkillsService } from './custom-skills.service.js';
import {
  CustomSkillContentSchema,
  CustomSkillHistorySchema,
  CustomSkillUpdateSchema,
  SkillDeleteResultSchema,
  SkillListSchema,
  SkillParamsSchema,
  SkillRollbackSchema,
} from './skills.schemas.js';

const tags = ['skills'];
const admin = { admin: true };
const readResponses = { 403: ErrorSchema, ...errorResponses };
const writeResponses = { 403: ErrorSchema, ...lockedWriteResponses };

export async function customSkillRoutes(app: FastifyInstance, deps: { customSkills: CustomSkillsService }): Promise<void> {
  const { customSkills } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/skills/custom', { schema: { tags, description: 'The custom (installed) skills only.', response: { 200: SkillListSchema } } }, async () =>
    customSkills.list(),
  );

  r.get(
    '/skills/custom/:skill_name',
    { config: admin, schema: { tags, params: SkillParamsSchema, response: { 200: CustomSkillContentSchema, ...readResponses } } },
    async (req) => customSkills.get(req.params.skill_name),
  );

  r.put(
    '/skills/custom/:skill_name',
    {
      config: admin,
      schema: {
        tags,
        description: "Replaces the skill's SKILL.md; the change is a new revision of its history.",
        params: SkillParamsSchema,
        body: CustomSkillUpdateSchema,
        response: { 200: CustomSkillContentSchema, ...writeResponses },
      },
    },
    async (req) => customSkills.update(req.params.skill_name, req.body.content),
  );

  r.delete(
    '/skills/custom/:skill_name',
    { config: admin, schema: { tags, params: SkillParamsSchema, response: { 200: SkillDeleteResultSchema, ...writeResponses } } },
    async (req) => customSkills.remove(req.params.skill_name),
  );

  r.get(
    '/skills/custom/:skill_name/history',
    { config: admin, schema: { tags, params: SkillParamsSchema, response: { 200: CustomSkillHistorySchema, ...readResponses } } },
    async (req) => customSkills.history(req.params.skill_name),
  );

  r.post(
    '/skills/custom/:skill_name/rollback',
    {
      config: admin,
      schema: {
        tags,
        description: 'Undoes one history entry (by default the latest): the content before it is written as a new revision.',
        params: SkillParamsSchema,
        body: SkillRollbackSchema,
        response: { 200: CustomSkillContentSchema, ...writeResponses },
      },
    },
    async (req) => customSkills.rollback(req.params.skill_name, req.body.history_index ?? -1),
  );
}
