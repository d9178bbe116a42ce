// What the agent is told about its thread: the uploaded files (with their Markdown
// conversions) and the enabled skills.
import path from 'node:path';
import { readExtensionsConfig } from '../../src/config/extensions.js';
import { scanSkills } from '../../src/skills/skills.js';
import type { ThreadFiles } from '../../src/workspace/thread-files.js';
import { virtualPath } from '../../src/workspace/thread-files.js';
import { readConversionIndex } from '../../src/uploads/uploads.js';
import type { PromptSkill, PromptUpload } from './prompts.js';

export async function listUploadsForPrompt(files: ThreadFiles, threadId: string): Promise<PromptUpload[]> {
  const [entries, index] = await Promise.all([files.listFiles(threadId, 'uploads'), readConversionIndex(files, threadId)]);
  const conversionOf = new Map([...index].map(([md, source]) => [source, md]));
  return entries
    .filter((e) => !index.has(e.name))
    .map((e) => {
      const md = conversionOf.get(e.name);
      return { path: virtualPath('uploads', e.name), size: e.size, ...(md ? { markdownPath: virtualPath('uploads', md) } : {}) };
    });
}

export async function listSkillsForPrompt(skillsDir: string, extensionsConfigPath: string, containerPath: string): Promise<PromptSkill[]> {
  const [skills, extensions] = await Promise.all([scanSkills(skillsDir), readExtensionsConfig(extensionsConfigPath)]);
  return skills
    .filter((s) => extensions.skills[s.name]?.enabled !== false)
    .map((s) => ({ name: s.name, description: s.description, path: path.posix.join(containerPath, s.path, 'SKILL.md') }));
}
