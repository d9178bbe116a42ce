// Skills: folders under skills/{public,custom}/ with a SKILL.md. The enabled state lives in
// extensions_config.json (a skill is enabled unless it says otherwise); every change is announced
// so workers reload. Installing unpacks into a temporary folder that is renamed into place.
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyBaseLogger } from 'fastify';
import { asStorageError, errnoCode } from '../errors.js';
import { scanSkills, SKILL_CATEGORIES, type SkillRecord } from './catalog.js';
import { parseSkillManifest, type SkillManifest } from './manifest.js';
import { tempPathIn } from '../workspace/thread-files.js';
import { PathNotAFileError } from '../workspace/workspace.errors.js';
import type { Success } from '../gateway/common.schemas.js';
import type { GatewayDeps } from '../gateway/gateway-deps.js';
import { openSkillArchive } from './skill-archive.js';
import { SkillArchiveInvalidError, SkillArchiveMissingError, SkillExistsError, SkillNotFoundError } from './skills.errors.js';
import type { SkillDetail, SkillInstallFromThread, SkillInstallResult, SkillList, SkillSummary } from './skills.schemas.js';

export const MAX_SKILL_ARCHIVE_BYTES = 50 * 1024 * 1024;
/** The skills folder as a full disk's message names it: its real path is the host's business. */
export const SKILLS_FOLDER = 'the skills folder';

type SkillsDeps = Pick<GatewayDeps, 'skillsDir' | 'extensions' | 'announceExtensionsChanged' | 'files'> & {
  /** Told of each installed skill's SKILL.md, to open its history. */
  onInstalled?: (name: string, manifestText: string) => Promise<void>;
};
const TOO_LARGE = `Invalid skill archive: it is larger than ${MAX_SKILL_ARCHIVE_BYTES / (1024 * 1024)} MiB.`;

/** Puts the archive at `target`: streamed from a request, or copied from a thread's files. */
type ArchiveSource = (target: string) => Promise<void>;

/** A skill as the list answers it; its enabled state comes from extensions_config.json. */
export function skillSummary(skill: SkillRecord, states: Record<string, { enabled: boolean }>): SkillSummary {
  return {
    name: skill.name,
    display_name: skill.displayName,
    description: skill.description,
    enabled: states[skill.name]?.enabled ?? true,
    license: skill.license,
    category: skill.category,
    path: skill.path,
    editable: skill.category === 'custom',
  };
}

export function scan(skillsDir: string, log: FastifyBaseLogger): Promise<SkillRecord[]> {
  return scanSkills(skillsDir, (skill, err) => log.warn({ err, skill }, 'skill skipped: unreadable SKILL.md'));
}

export function createSkillsService(deps: SkillsDeps, log: FastifyBaseLogger) {
  const enabledStates = async () => (await deps.extensions.read()).skills;
  const find = async (name: string): Promise<SkillRecord> => {
    const skill = (await scan(deps.skillsDir, log)).find((s) => s.name === name);
    if (!skill) throw new SkillNotFoundError(`Skill '${name}' not found.`);
    return skill;
  };

  const setEnabled = async (name: string, enabled: boolean): Promise<Success> => {
    await find(name);
    await deps.extensions.update((config) => {
      config.skills[name] = { enabled };
    });
    await deps.announceExtensionsChanged();
    return { success: true, message: `Skill '${name}' ${enabled ? 'enabled' : 'disabled'}.` };
  };

  return {
    async list(): Promise<SkillList> {
      const [skills, states] = await Promise.all([scan(deps.skillsDir, log), enabledStates()]);
      return { skills: skills.map((s) => skillSummary(s, states)) };
    },

    async get(name: string): Promise<SkillDetail> {
      const skill = await find(name);
      return { ...skillSummary(skill, await enabledStates()), allowed_tools: skill.allowedTools, content: skill.content };
    },

    setEnabled,

    /** DeerFlow's `PUT /skills/{name}`: the same change, answered with the skill. */
    async update(name: string, enabled: boolean): Promise<SkillSummary> {
      await setEnabled(name, enabled);
      return skillSummary(await find(name), await enabledStates());
    },

    /** Installs the `.skill` archive of a multipart part into skills/custom/<name>. */
    async install(part: MultipartFile | undefined): Promise<SkillInstallResult> {
      if (!part) throw new SkillArchiveMissingError('No file was sent: send the .skill archive in a multipart part named "file".');
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw new SkillArchiveMissingError(`Unexpected part "${part.fieldname}": send the .skill archive in a part named "file".`);
      }
      return installArchive(async (target) => {
        await pipeline(part.file, createWriteStream(target, { flags: 'wx' }));
        if (part.file.truncated) throw new SkillArchiveInvalidError(TOO_LARGE);
      });
    },

    /** Installs a `.skill` archive that is already among a thread's files. */
    async installFromThread(request: SkillInstallFromThread): Promise<SkillInstallResult> {
      const real = await deps.files.resolveVirtual(request.thread_id, request.path);
      const info = await stat(real);
      if (!info.isFile()) throw new PathNotAFileError(`${request.path} is not a file.`);
      if (info.size > MAX_SKILL_ARCHIVE_BYTES) throw new SkillArchiveInvalidError(TOO_LARGE);
      // A copy, so that the agent rewriting its file mid-install cannot change what is checked.
      return installArchive((target) => copyFile(real, target));
    },
  };

  async function installArchive(source: ArchiveSource): Promise<SkillInstallResult> {
    const customDir = path.join(deps.skillsDir, 'custom');
    // The work folder sits beside its destination, so the final rename stays on one filesystem.
    const work = tempPathIn(customDir);
    let installed: { manifest: SkillManifest; text: string };
    try {
      await mkdir(customDir, { recursive: true });
      await mkdir(work);
      const archivePath = path.join(work, 'archive.skill');
      await source(archivePath);
      installed = await unpack(archivePath, work, customDir, deps.skillsDir, log);
    } catch (err) {
      throw asStorageError(err, { where: SKILLS_FOLDER, what: 'the skill archive' });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    const { manifest } = installed;
    // The skill is in place: a history that could not be opened is logged, not answered as a
    // failure, which a retry would only meet as 409. Its first edit starts the history then.
    await deps.onInstalled?.(manifest.name, installed.text).catch((err: unknown) => log.warn({ err, skill: manifest.name }, 'custom skill history not opened'));
    await deps.announceExtensionsChanged();
    const skill = { name: manifest.name, display_name: manifest.displayName, path: `custom/${manifest.name}` };
    return { success: true, message: `Skill '${manifest.name}' installed.`, skill_name: manifest.name, skill };
  }
}

async function unpack(archivePath: string, work: string, customDir: string, skillsDir: string, log: FastifyBaseLogger): Promise<{ manifest: SkillManifest; text: string }> {
  const archive = await openSkillArchive(archivePath);
  try {
    const manifest = parseSkillManifest(archive.manifestText);
    const taken = (await scan(skillsDir, log)).some((s) => s.name === manifest.name);
    const destination = path.join(customDir, manifest.name);
    const folderTaken = await Promise.all(
      SKILL_CATEGORIES.map((c) => stat(path.join(skillsDir, c, manifest.name)).then(() => true, () => false)),
    );
    if (taken || folderTaken.includes(true)) throw new SkillExistsError(`A skill named '${manifest.name}' already exists.`);
    const unpacked = path.join(work, 'skill');
    await mkdir(unpacked);
    await archive.extractTo(unpacked).catch((err: unknown) => {
      throw asStorageError(err, { where: SKILLS_FOLDER, what: `the files of skill '${manifest.name}'` });
    });
    try {
      await rename(unpacked, destination);
    } catch (err) {
      // Another install of the same name won the race.
      if (errnoCode(err) === 'EEXIST' || errnoCode(err) === 'ENOTEMPTY') {
        throw new SkillExistsError(`A skill named '${manifest.name}' already exists.`);
      }
      throw err;
    }
    return { manifest, text: archive.manifestText };
  } finally {
    archive.close();
  }
}

export type SkillsService = ReturnType<typeof createSkillsService>;
