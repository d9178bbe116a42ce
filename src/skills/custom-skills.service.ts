// DeerFlow's custom skill editing (/api/skills/custom/...): read, edit, delete, history and
// rollback of the skills under skills/custom/.
//
// Every API replica and worker reads the same skills folder, so a SKILL.md is only ever replaced
// by a rename (readers see the old file or the new one), and every change runs under one Redis
// lock (`customSkills`), confirmed right before its rename: two replicas never rewrite a skill at
// once, and a holder whose lease lapsed renames nothing. The history is a Redis list per skill
// (skill-history-store.ts), appended under the same lock, so its revisions are numbered in the
// order the files changed. Workers scan the folder at each run, so the next run sees the change.
import { readFile, rename, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { writeFileAtomic, type WriteGuard } from '../config/atomic-file.js';
import type { GatewayDeps } from '../gateway/gateway-deps.js';
import { tempPathIn } from '../workspace/thread-files.js';
import { MAX_SKILL_FILE_BYTES, type SkillRecord } from './catalog.js';
import { isSkillName, parseSkillManifest, SKILL_FILE } from './manifest.js';
import type { SkillHistoryStore } from './skill-history-store.js';
import { SkillManifestInvalidError, SkillNameInvalidError, SkillNotEditableError, SkillNotFoundError, SkillRollbackInvalidError } from './skills.errors.js';
import type { CustomSkillContent, CustomSkillHistory, SkillList } from './skills.schemas.js';
import { scan, skillSummary, SKILLS_FOLDER } from './skills.service.js';

export type CustomSkillsDeps = Pick<GatewayDeps, 'skillsDir' | 'extensions' | 'announceExtensionsChanged'> & {
  history: SkillHistoryStore;
  /** One lock for every custom skill's files and history, shared by all API replicas. */
  lock: WriteGuard;
};

/** The name as DeerFlow reads it from the path: line breaks dropped, then checked. */
function cleanName(raw: string): string {
  const name = raw.replace(/\r?\n/g, '').trim();
  if (!isSkillName(name)) {
    throw new SkillNameInvalidError('Skill name must be hyphen-case using lowercase letters, digits, and hyphens only, at most 64 characters.');
  }
  return name;
}

/** DeerFlow's checks on new SKILL.md content: valid front matter naming this very skill. */
function validateContent(name: string, content: string): void {
  if (Buffer.byteLength(content) > MAX_SKILL_FILE_BYTES) throw new SkillManifestInvalidError(`Invalid ${SKILL_FILE}: it is larger than 1 MiB.`);
  const manifest = parseSkillManifest(content);
  if (manifest.name !== name) throw new SkillManifestInvalidError(`Frontmatter name '${manifest.name}' must match requested skill name '${name}'.`);
}

const notFound = (name: string) => new SkillNotFoundError(`Custom skill '${name}' not found`);

export function createCustomSkillsService(deps: CustomSkillsDeps, log: FastifyBaseLogger) {
  const customDir = path.join(deps.skillsDir, 'custom');
  const fileOf = (skill: SkillRecord) => path.join(deps.skillsDir, ...skill.path.split('/'), SKILL_FILE);
  const states = async () => (await deps.extensions.read()).skills;
  const findAll = async (name: string) => (await scan(deps.skillsDir, log)).filter((s) => s.name === name);
  const findCustom = async (name: string) => (await findAll(name)).find((s) => s.category === 'custom');

  /** The custom skill to change; a public one of that name is refused as DeerFlow refuses it. */
  const requireEditable = async (name: string): Promise<SkillRecord> => {
    const found = await findAll(name);
    const custom = found.find((s) => s.category === 'custom');
    if (custom) return custom;
    if (found.length > 0) throw new SkillNotEditableError(`'${name}' is a built-in skill: only custom skills can be edited, deleted or rolled back.`);
    throw notFound(name);
  };

  const contentOf = async (name: string): Promise<CustomSkillContent> => {
    const skill = await findCustom(name);
    if (!skill) throw notFound(name);
    return { ...skillSummary(skill, await states()), content: await readFile(fileOf(skill), 'utf8') };
  };

  /** Replaces SKILL.md by a rename, only if the lock still holds. */
  const writeSkillFile = async (name: string, file: string, content: string, confirm: () => Promise<void>) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, tempPathIn(path.dirname(file)), content, {
      beforeRename: confirm,
      target: { where: SKILLS_FOLDER, what: `the ${SKILL_FILE} of skill '${name}'` },
    });
  };

  return {
    async list(): Promise<SkillList> {
      const [skills, enabled] = await Promise.all([scan(deps.skillsDir, log), states()]);
      return { skills: skills.filter((s) => s.category === 'custom').map((s) => skillSummary(s, enabled)) };
    },

    get: (rawName: string) => contentOf(cleanName(rawName)),

    async update(rawName: string, content: string): Promise<CustomSkillContent> {
      const name = cleanName(rawName);
      await deps.lock.run(async (confirm) => {
        const skill = await requireEditable(name);
        validateContent(name, content);
        const file = fileOf(skill);
        const previous = await readFile(file, 'utf8');
        await writeSkillFile(name, file, content, confirm);
        await deps.history.append(name, { action: 'human_edit', prev_content: previous, new_content: content });
      });
      await deps.announceExtensionsChanged();
      return contentOf(name);
    },

    async remove(rawName: string): Promise<{ success: boolean }> {
      const name = cleanName(rawName);
      await deps.lock.run(async (confirm) => {
        const skill = await requireEditable(name);
        const folder = path.dirname(fileOf(skill));
        const previous = await readFile(path.join(folder, SKILL_FILE), 'utf8');
        await deps.history.append(name, { action: 'human_delete', prev_content: previous, new_content: null });
        // Renamed to a dot-folder first, which scans skip: the skill disappears at once, whole.
        const doomed = tempPathIn(customDir);
        await confirm();
        await rename(folder, doomed);
        await rm(doomed, { recursive: true, force: true });
      });
      await deps.announceExtensionsChanged();
      return { success: true };
    },

    async history(rawName: string): Promise<CustomSkillHistory> {
      const name = cleanName(rawName);
      const history = await deps.history.list(name);
      if (history.length === 0 && !(await findCustom(name))) throw notFound(name);
      return { history };
    },

    /** Undoes history entry `index` (negative counts from the end): its previous content is written as a new revision. */
    async rollback(rawName: string, index: number): Promise<CustomSkillContent> {
      const name = cleanName(rawName);
      await deps.lock.run(async (confirm) => {
        const found = await findAll(name);
        const custom = found.find((s) => s.category === 'custom');
        const history = await deps.history.list(name);
        if (!custom && history.length === 0) throw notFound(name);
        if (!custom && found.length > 0) throw new SkillNotEditableError(`'${name}' is a built-in skill: only custom skills can be edited, deleted or rolled back.`);
        if (history.length === 0) throw new SkillRollbackInvalidError(`Custom skill '${name}' has no history`);
        const at = index < 0 ? history.length + index : index;
        const entry = history[at];
        if (!entry) throw new SkillRollbackInvalidError('history_index is out of range');
        const target = entry.prev_content;
        if (target === null) throw new SkillRollbackInvalidError('Selected history entry has no previous content to roll back to');
        validateContent(name, target);
        // A deleted skill comes back where the installer would have put it.
        const file = custom ? fileOf(custom) : path.join(customDir, name, SKILL_FILE);
        const current = custom ? await readFile(file, 'utf8') : null;
        await writeSkillFile(name, file, target, confirm);
        await deps.history.append(name, {
          action: 'rollback',
          prev_content: current,
          new_content: target,
          rollback_from_ts: entry.ts,
          rollback_from_revision: entry.revision,
        });
      });
      await deps.announceExtensionsChanged();
      return contentOf(name);
    },

    /** Opens an installed skill's history with its first revision. */
    recordInstall(name: string, manifestText: string): Promise<void> {
      return deps.lock.run(async () => {
        await deps.history.append(name, { action: 'install', prev_content: null, new_content: manifestText });
      });
    },
  };
}

export type CustomSkillsService = ReturnType<typeof createCustomSkillsService>;
