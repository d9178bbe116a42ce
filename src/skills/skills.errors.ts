// The causes the skills API refuses with, and why the catalog skips a skill folder.
import { defineError } from '../errors.js';

/** No skill of that name is installed (public or custom). */
export const SkillNotFoundError = defineError('WARREN_SKILL_NOT_FOUND', 404);
/** A skill of that name is installed already, or its folder is taken. */
export const SkillExistsError = defineError('WARREN_SKILL_EXISTS', 409);
/** The `.skill` archive is not a zip Warren installs: damaged, too large, or an entry breaks a rule. */
export const SkillArchiveInvalidError = defineError('WARREN_SKILL_ARCHIVE_INVALID', 400);
/** An install request sent no archive in the multipart part `file`. */
export const SkillArchiveMissingError = defineError('WARREN_SKILL_ARCHIVE_MISSING', 400);
/** A skill's SKILL.md is missing its front matter, is not valid, or is too large. */
export const SkillManifestInvalidError = defineError('WARREN_SKILL_MANIFEST_INVALID', 400);
/** An install request is neither multipart nor JSON. */
export const SkillInstallTypeUnsupportedError = defineError('WARREN_SKILL_INSTALL_TYPE_UNSUPPORTED', 415);
/** A skill name in the path is not hyphen-case of at most 64 characters. */
export const SkillNameInvalidError = defineError('WARREN_SKILL_NAME_INVALID', 400);
/** The skill is a built-in (public) one: only custom skills are edited, deleted or rolled back. */
export const SkillNotEditableError = defineError('WARREN_SKILL_NOT_EDITABLE', 400);
/** A rollback asked for a history the skill does not have: none at all, an index out of range, or an entry with no earlier content. */
export const SkillRollbackInvalidError = defineError('WARREN_SKILL_ROLLBACK_INVALID', 400);
