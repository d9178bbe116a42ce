// SKILL.md: YAML front matter (name, description, license, allowed-tools, display_name) and
// Markdown instructions. One parser for the shipped skills, the installed ones and the archives
// being installed, so all three obey the same rules.
import { parseDocument } from 'yaml';
import { SkillManifestInvalidError } from './skills.errors.js';

export const SKILL_FILE = 'SKILL.md';
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
const SKILL_NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** `metadata` is the Agent Skills spec's free-form map; skill-creator tools write it. */
const ALLOWED_KEYS = new Set(['name', 'description', 'license', 'allowed-tools', 'display_name', 'metadata']);
const FRONT_MATTER_RE = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export interface SkillManifest {
  name: string;
  displayName: string;
  description: string;
  license: string;
  allowedTools: string[];
  /** The instructions: SKILL.md without its front matter. */
  content: string;
}

/** Hyphen-case, at most 64 characters: `deep-research`. */
export function isSkillName(name: string): boolean {
  return name.length <= SKILL_NAME_MAX && SKILL_NAME_RE.test(name);
}

function invalid(reason: string): never {
  throw new SkillManifestInvalidError(`Invalid ${SKILL_FILE}: ${reason}.`);
}

function optionalString(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') invalid(`"${key}" must be a string`);
  return value;
}

/** `allowed-tools` is a YAML list, or one string separated by commas (or spaces). */
function toolList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    const parts = value.includes(',') ? value.split(',') : value.split(/\s+/);
    return parts.map((t) => t.trim()).filter(Boolean);
  }
  if (Array.isArray(value) && value.every((t) => typeof t === 'string')) return value.map((t) => t.trim()).filter(Boolean);
  return invalid('"allowed-tools" must be a list of tool names');
}

/** Parses and validates SKILL.md. Throws SkillManifestInvalidError naming the first problem. */
export function parseSkillManifest(text: string): SkillManifest {
  const match = FRONT_MATTER_RE.exec(text);
  if (!match) invalid('it must start with YAML front matter between "---" lines');
  const doc = parseDocument(match[1] ?? '', { uniqueKeys: true });
  if (doc.errors.length > 0) invalid(`the front matter is not valid YAML (${doc.errors[0]?.message.split('\n')[0] ?? 'parse error'})`);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    invalid(`the front matter could not be read (${(err as Error).message})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) invalid('the front matter must be a mapping of keys to values');
  const fields = data as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !ALLOWED_KEYS.has(k));
  if (unknown.length > 0) invalid(`unexpected front matter key(s) ${unknown.join(', ')}; allowed: ${[...ALLOWED_KEYS].join(', ')}`);

  const name = optionalString(fields, 'name');
  if (!name) invalid('"name" is missing');
  if (!isSkillName(name)) invalid(`"name" must be hyphen-case (a-z, 0-9 and single hyphens) and at most ${SKILL_NAME_MAX} characters`);
  const description = optionalString(fields, 'description')?.trim();
  if (!description) invalid('"description" is missing');
  if (description.length > SKILL_DESCRIPTION_MAX) invalid(`"description" is longer than ${SKILL_DESCRIPTION_MAX} characters`);
  if (/[<>]/.test(description)) invalid('"description" may not contain < or >');
  const metadata = fields.metadata;
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))) {
    invalid('"metadata" must be a mapping');
  }
  const displayName = optionalString(fields, 'display_name')?.trim();
  return {
    name,
    displayName: displayName || name,
    description,
    license: optionalString(fields, 'license')?.trim() ?? '',
    allowedTools: toolList(fields['allowed-tools']),
    content: text.slice(match[0].length).replace(/^\s*\n/, ''),
  };
}
