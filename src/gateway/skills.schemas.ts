// /api/skills: the shipped (public) and installed (custom) skills.
import { Type, type Static } from 'typebox';
import { SuccessSchema } from './common.schemas.js';

export const SkillSummarySchema = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  license: Type.String(),
  /** `public/<folder>` or `custom/<folder>`. */
  path: Type.String(),
});
export type SkillSummary = Static<typeof SkillSummarySchema>;

export const SkillListSchema = Type.Object({ skills: Type.Array(SkillSummarySchema) });
export type SkillList = Static<typeof SkillListSchema>;

export const SkillDetailSchema = Type.Object({
  ...SkillSummarySchema.properties,
  allowed_tools: Type.Array(Type.String()),
  /** The Markdown instructions (SKILL.md without its front matter). */
  content: Type.String(),
});
export type SkillDetail = Static<typeof SkillDetailSchema>;

export const SkillParamsSchema = Type.Object({ skill_name: Type.String({ minLength: 1, maxLength: 128 }) });

export const SkillInstallResultSchema = Type.Object({
  ...SuccessSchema.properties,
  skill: Type.Object({ name: Type.String(), display_name: Type.String(), path: Type.String() }),
});
export type SkillInstallResult = Static<typeof SkillInstallResultSchema>;
