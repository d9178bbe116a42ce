// The skills on disk: skills/{public,custom}/<folder>/SKILL.md. Shared by the gateway (list,
// detail, install) and the workers (which skills the agent is told about), so both see the same
// set. A folder whose SKILL.md is unreadable or invalid is skipped, never fatal.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../errors.js';
import { parseSkillManifest, SKILL_FILE, type SkillManifest } from './manifest.js';
import { SkillExistsError, SkillManifestInvalidError } from './skills.errors.js';

export const SKILL_CATEGORIES = ['public', 'custom'] as const;
export type SkillCategory = (typeof SKILL_CATEGORIES)[number];
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export interface SkillRecord extends SkillManifest {
  category: SkillCategory;
  /** `<category>/<folder>`, relative to the skills folder. */
  path: string;
}

/**
 * Every valid skill, public first, each category in folder order. Dot-folders (an install in
 * progress) are ignored; when two skills claim one name, the first wins and the other is skipped.
 */
export async function scanSkills(skillsDir: string, onSkipped?: (skillPath: string, err: unknown) => void): Promise<SkillRecord[]> {
  const found: SkillRecord[] = [];
  const seen = new Set<string>();
  for (const category of SKILL_CATEGORIES) {
    const dir = path.join(skillsDir, category);
    const folders = await readdir(dir).catch((err: unknown) => {
      if (errnoCode(err) === 'ENOENT') return [];
      throw err;
    });
    for (const folder of folders.sort()) {
      if (folder.startsWith('.')) continue;
      const file = path.join(dir, folder, SKILL_FILE);
      try {
        const info = await stat(file);
        if (!info.isFile() || info.size > MAX_SKILL_FILE_BYTES) throw new SkillManifestInvalidError(`${SKILL_FILE} is not a file of at most 1 MiB`);
        const manifest = parseSkillManifest(await readFile(file, 'utf8'));
        if (seen.has(manifest.name)) throw new SkillExistsError(`the name "${manifest.name}" is already taken by another skill`);
        seen.add(manifest.name);
        found.push({ ...manifest, category, path: `${category}/${folder}` });
      } catch (err) {
        // A folder without SKILL.md is not a skill (a README, a stray folder): no noise for it.
        if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') continue;
        onSkipped?.(`${category}/${folder}`, err);
      }
    }
  }
  return found;
}
