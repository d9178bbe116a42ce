// /api/skills: the shipped (public) and installed (custom) skills.
import { Type, type Static } from 'typebox';
import { SuccessSchema } from '../gateway/common.schemas.js';
import { SkillRevisionSchema } from './skill-history-store.js';

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
  /** DeerFlow's flag: true only for custom skills, which /api/skills/custom edits, deletes and rolls back. */
  editable: Type.Boolean(),
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

// ── /api/skills/custom: DeerFlow's custom skill editing, with history and rollback ─────────

/** A custom skill with its whole SKILL.md (front matter included), as DeerFlow's editor shows it. */
export const CustomSkillContentSchema = Type.Object({
  ...SkillSummarySchema.properties,
  content: Type.String(),
});
export type CustomSkillContent = Static<typeof CustomSkillContentSchema>;

export const CustomSkillUpdateSchema = Type.Object(
  { content: Type.String({ maxLength: 1024 * 1024, description: 'The new SKILL.md, front matter included; its `name` must be the skill\'s.' }) },
  { additionalProperties: false },
);
export type CustomSkillUpdate = Static<typeof CustomSkillUpdateSchema>;

export const CustomSkillHistorySchema = Type.Object({ history: Type.Array(SkillRevisionSchema) });
export type CustomSkillHistory = Static<typeof CustomSkillHistorySchema>;

export const SkillRollbackSchema = Type.Object(
  {
    /** Which history entry to undo, Python-style (negative counts from the end): its previous content becomes a new revision. */
    history_index: Type.Optional(Type.Integer({ default: -1, minimum: -1_000_000, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type SkillRollback = Static<typeof SkillRollbackSchema>;

export const SkillDeleteResultSchema = Type.Object({ success: Type.Boolean() });
