// /api/skills: the shipped (public) and installed (custom) skills.
import { Type, type Static } from 'typebox';
import { SuccessSchema } from '../gateway/common.schemas.js';

export const SkillSummarySchema = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  license: Type.String(),
  /** `public` (shipped with Warren) or `custom` (installed). DeerFlow's skills page groups by it. */
  category: Type.Union([Type.Literal('public'), Type.Literal('custom')]),
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

export const SkillUpdateSchema = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
export type SkillUpdate = Static<typeof SkillUpdateSchema>;

/** DeerFlow's JSON install: a `.skill` archive already in a thread's files (say, one the agent wrote). */
export const SkillInstallFromThreadSchema = Type.Object(
  {
    thread_id: Type.String({ minLength: 1, maxLength: 128 }),
    /** Virtual path, such as `/mnt/user-data/outputs/my-skill.skill`. */
    path: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
export type SkillInstallFromThread = Static<typeof SkillInstallFromThreadSchema>;

export const SkillInstallResultSchema = Type.Object({
  ...SuccessSchema.properties,
  /** DeerFlow's field; the same name as `skill.name`. */
  skill_name: Type.String(),
  skill: Type.Object({ name: Type.String(), display_name: Type.String(), path: Type.String() }),
});
export type SkillInstallResult = Static<typeof SkillInstallResultSchema>;
