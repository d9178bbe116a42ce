// Reading a `.skill` archive (a zip) safely: every entry is checked from the central directory
// before anything is written (no absolute paths, no `..`, no symlinks, bounded entry count and
// expanded size), then the files are extracted into a folder the caller renames into place.
import { createWriteStream } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getFileNameLowLevel, openPromise, type Entry, type ZipFile } from 'yauzl';
import { SkillArchiveInvalidError } from './skills.errors.js';
import { SKILL_FILE } from './manifest.js';

export interface ArchiveLimits {
  maxEntries: number;
  maxExpandedBytes: number;
  /** SKILL.md is read into memory, so it gets its own cap. */
  maxManifestBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxEntries: 1000,
  maxExpandedBytes: 200 * 1024 * 1024,
  maxManifestBytes: 1024 * 1024,
});

interface ArchiveEntry {
  entry: Entry;
  /** Path inside the skill's folder (the top folder stripped), `/`-separated. */
  relative: string;
  isDirectory: boolean;
}

export interface SkillArchive {
  manifestText: string;
  /** Writes every entry under `dir`, which must exist and be empty. */
  extractTo(dir: string): Promise<void>;
  close(): void;
}

const MIB = 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function refuse(reason: string): never {
  throw new SkillArchiveInvalidError(`Invalid skill archive: ${reason}.`);
}

/** Junk that archivers add; it is skipped, not installed. */
function isJunk(name: string): boolean {
  return name.startsWith('__MACOSX/') || name.split('/').pop() === '.DS_Store';
}

function checkEntryName(name: string): void {
  if (name.length === 0) refuse('an entry has an empty name');
  if (/[\u0000-\u001f\u007f]/.test(name)) refuse(`entry "${JSON.stringify(name).slice(1, -1)}" has control characters in its name`);
  if (name.includes('\\')) refuse(`entry "${name}" has a backslash in its name`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) refuse(`entry "${name}" has an absolute path`);
  if (name.split('/').includes('..')) refuse(`entry "${name}" contains ".."`);
}

async function readEntries(zip: ZipFile): Promise<Entry[]> {
  const entries: Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve());
    zip.once('error', reject);
    zip.readEntry();
  });
  return entries;
}

async function readText(zip: ZipFile, entry: Entry, maxBytes: number): Promise<string> {
  if (entry.uncompressedSize > maxBytes) refuse(`${SKILL_FILE} is larger than ${maxBytes / MIB} MiB`);
  const chunks: Buffer[] = [];
  await pipeline(
    await zip.openReadStreamPromise(entry),
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(chunks).toString('utf8');
}

/** Where the skill's files sit: the archive's root, or its one top folder. */
function skillRoot(names: string[]): string {
  if (names.includes(SKILL_FILE)) return '';
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const [top] = tops;
  if (tops.size === 1 && top && names.includes(`${top}/${SKILL_FILE}`)) return `${top}/`;
  return refuse(`${SKILL_FILE} must be at the archive's root or inside its single top folder`);
}

/**
 * Opens and checks an archive on disk. Throws SkillArchiveInvalidError with the reason when it is
 * not a zip, or breaks a rule; nothing is written until extractTo is called.
 */
export async function openSkillArchive(file: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<SkillArchive> {
  let zip: ZipFile;
  try {
    // Names are decoded and checked here, not by yauzl, so each refusal says why.
    zip = await openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (err) {
    return refuse(`it is not a readable zip file (${(err as Error).message})`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) refuse(`it has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`);
    let expanded = 0;
    const kept: { entry: Entry; name: string }[] = [];
    // strictFileNames: a backslash stays a backslash (and is refused), not silently a separator.
    for (const entry of await readEntries(zip).catch((err: unknown) => refuse(`its directory is damaged (${(err as Error).message})`))) {
      const name = getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      checkEntryName(name);
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) refuse(`entry "${name}" is a symbolic link`);
      if (entry.isEncrypted()) refuse(`entry "${name}" is encrypted`);
      expanded += entry.uncompressedSize;
      if (expanded > limits.maxExpandedBytes) refuse(`it expands to more than ${limits.maxExpandedBytes / MIB} MiB`);
      if (!isJunk(name)) kept.push({ entry, name });
    }
    const root = skillRoot(kept.map((k) => k.name));
    const entries: ArchiveEntry[] = kept
      .map(({ entry, name }) => ({ entry, relative: name.slice(root.length).replace(/\/+$/, ''), isDirectory: name.endsWith('/') }))
      .filter((e) => e.relative !== '');
    const manifest = entries.find((e) => e.relative === SKILL_FILE && !e.isDirectory);
    if (!manifest) return refuse(`${SKILL_FILE} is missing`);
    const manifestText = await readText(zip, manifest.entry, limits.maxManifestBytes).catch((err: unknown) => {
      if (err instanceof SkillArchiveInvalidError) throw err;
      return refuse(`${SKILL_FILE} could not be read (${(err as Error).message})`);
    });
    return {
      manifestText,
      extractTo: (dir) => extractAll(zip, entries, dir),
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    throw err;
  }
}

async function extractAll(zip: ZipFile, entries: ArchiveEntry[], dir: string): Promise<void> {
  for (const { entry, relative, isDirectory } of entries) {
    const target = path.join(dir, ...relative.split('/'));
    // Belt and braces: the names were checked, but the join must still land inside `dir`.
    if (!target.startsWith(dir + path.sep)) refuse(`entry "${relative}" leaves the skill's folder`);
    try {
      if (isDirectory) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      // `wx`: a name that appears twice, or collides with a folder, is refused, not overwritten.
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target, { flags: 'wx', mode: 0o644 }));
      const mode = (entry.externalFileAttributes >>> 16) & 0o777;
      if (mode & 0o111) await chmod(target, 0o755);
    } catch (err) {
      if (err instanceof SkillArchiveInvalidError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') refuse(`entry "${relative}" appears twice or collides with a folder`);
      // yauzl's own checks carry no code; zlib's start with Z_.
      if (code === undefined || code.startsWith('Z_')) refuse(`entry "${relative}" is damaged (${(err as Error).message})`);
      throw err;
    }
  }
}
