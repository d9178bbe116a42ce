// A thread's files: WARREN_HOME/threads/{id}/user-data/{uploads,outputs,workspace}. This is the
// one module that turns a thread id, a file name or an agent's virtual path (/mnt/user-data/...)
// into a real path, and it refuses anything that could leave the thread's folder: `..`, encoded
// forms, control characters, absolute paths and symlinks pointing out (checked with realpath).
// The gateway and the agent's sandbox share it, so it knows nothing of HTTP.
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic as writeAtomic, writeTempFile } from '../config/atomic-file.js';
import type { WriteTarget } from '../errors.js';
import { FileNameInvalidError, FileNotFoundError, PathInvalidError, PathOutsideThreadError, ThreadIdInvalidError } from './workspace.errors.js';

export const USER_DATA_AREAS = ['uploads', 'outputs', 'workspace'] as const;
export type UserDataArea = (typeof USER_DATA_AREAS)[number];

/** Where the agent sees a thread's user-data folder. */
export const VIRTUAL_USER_DATA = '/mnt/user-data';
const VIRTUAL_PREFIX = ['mnt', 'user-data'] as const;
/** How paths under WARREN_HOME are shown to clients, wherever WARREN_HOME really is. */
export const DISPLAY_HOME = '.warren';
export const THREAD_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
const THREAD_ID_RE = new RegExp(THREAD_ID_PATTERN);

// Temporary names start with this; listings hide them and uploads may not use the prefix.
const TEMP_PREFIX = '.warren-tmp-';
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
// Percent-encoded dot, slash, backslash or NUL (and overlong UTF-8 forms) left after the router
// decoded the URL once: a double-encoded traversal attempt.
const ENCODED_SEPARATORS = /%(?:2e|2f|5c|00|c0|c1)/i;

export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/** A fresh temporary path in `dir`, for writing a file that is renamed into place later. */
export function tempPathIn(dir: string): string {
  return path.join(dir, `${TEMP_PREFIX}${randomUUID()}`);
}

export function isThreadId(threadId: string): boolean {
  return THREAD_ID_RE.test(threadId);
}

/** Why `name` cannot be one file's name inside a folder, or null when it can. */
export function fileNameProblem(name: string): string | null {
  if (name.length === 0) return 'the file name is empty';
  if (name === '.' || name === '..') return `"${name}" is not a file name`;
  if (CONTROL_CHARS.test(name)) return 'the file name contains control characters';
  if (name.includes('/') || name.includes('\\')) return 'the file name contains a path separator';
  if (Buffer.byteLength(name, 'utf8') > 255) return 'the file name is longer than 255 bytes';
  if (isTempName(name)) return `file names starting with "${TEMP_PREFIX}" are reserved`;
  return null;
}

/** `inner` is `root` or inside it (both absolute and normalised). */
export function isWithin(root: string, inner: string): boolean {
  return inner === root || inner.startsWith(root + path.sep);
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Splits any virtual path into its segments (empty and `.` segments dropped), refusing what could
 * escape once joined to a real folder. Throws PathInvalidError (400) for control characters,
 * PathOutsideThreadError (403) for `..`, backslashes or encoded separators. The agent's sandbox
 * uses it for both `/mnt/user-data` and `/mnt/skills`.
 */
export function splitVirtualPath(virtualPath: string): string[] {
  if (CONTROL_CHARS.test(virtualPath)) throw new PathInvalidError('The path contains control characters.');
  if (ENCODED_SEPARATORS.test(virtualPath)) throw new PathOutsideThreadError('The path contains encoded separators and is refused.');
  if (virtualPath.includes('\\')) throw new PathOutsideThreadError('The path contains a backslash and is refused.');
  const segments = virtualPath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new PathOutsideThreadError('The path leaves the thread\'s folder and is refused.');
  return segments;
}

/**
 * Splits a virtual path (`/mnt/user-data/outputs/a.txt`, leading slash optional) into the
 * segments under the user-data folder. Throws PathInvalidError (400) for control characters or
 * another prefix, PathOutsideThreadError (403) for `..` or encoded separators.
 */
export function parseVirtualPath(virtualPath: string): string[] {
  const segments = splitVirtualPath(virtualPath);
  if (segments[0] !== VIRTUAL_PREFIX[0] || segments[1] !== VIRTUAL_PREFIX[1]) {
    throw new PathInvalidError(`Only paths under ${VIRTUAL_USER_DATA.slice(1)}/ can be served.`);
  }
  return segments.slice(VIRTUAL_PREFIX.length);
}

export interface FileEntry {
  name: string;
  size: number;
  mtimeMs: number;
}

export interface ThreadFiles {
  threadDir(threadId: string): string;
  userDataDir(threadId: string): string;
  areaDir(threadId: string, area: UserDataArea): string;
  /** Real path of file `name` in an area; `name` must be a plain file name. */
  fileIn(threadId: string, area: UserDataArea, name: string): string;
  /** `.warren/threads/{id}/user-data/{area}/{name}`, as responses show it. */
  displayPath(threadId: string, area: UserDataArea, name: string): string;
  /** A file beside user-data, for the service's own bookkeeping; the agent never sees it. */
  metaFile(threadId: string, name: string): string;
  /** Creates the area's folder if needed and checks that it is really inside the thread's. */
  ensureArea(threadId: string, area: UserDataArea): Promise<string>;
  /** The real path of an existing file or folder a virtual path names (404, 400 or 403 otherwise). */
  resolveVirtual(threadId: string, virtualPath: string): Promise<string>;
  /** Regular files in an area (no folders, symlinks or temporary files), sorted by name. */
  listFiles(threadId: string, area: UserDataArea): Promise<FileEntry[]>;
  /** Removes the thread's whole folder. Idempotent. */
  removeThread(threadId: string): Promise<void>;
}

export function virtualPath(area: UserDataArea, name: string): string {
  return `${VIRTUAL_USER_DATA}/${area}/${name}`;
}

export function createThreadFiles(home: string): ThreadFiles {
  const threadsRoot = path.join(path.resolve(home), 'threads');

  const threadDir = (threadId: string): string => {
    if (!isThreadId(threadId)) throw new ThreadIdInvalidError(`Invalid thread id: it must match ${THREAD_ID_PATTERN}.`);
    return path.join(threadsRoot, threadId);
  };
  const userDataDir = (threadId: string) => path.join(threadDir(threadId), 'user-data');
  const areaDir = (threadId: string, area: UserDataArea) => path.join(userDataDir(threadId), area);

  /** realpath of `target`, which must lie inside realpath(`root`): 404 if missing, 403 if outside. */
  const realInside = async (root: string, target: string): Promise<string> => {
    let realRoot: string;
    let realTarget: string;
    try {
      realRoot = await realpath(root);
      realTarget = await realpath(target);
    } catch (err) {
      if (isMissing(err)) throw new FileNotFoundError('File not found.');
      throw err;
    }
    if (!isWithin(realRoot, realTarget)) throw new PathOutsideThreadError('The path leaves the thread\'s folder and is refused.');
    return realTarget;
  };

  return {
    threadDir,
    userDataDir,
    areaDir,

    fileIn(threadId, area, name) {
      const problem = fileNameProblem(name);
      if (problem) throw new FileNameInvalidError(`Invalid file name: ${problem}.`);
      return path.join(areaDir(threadId, area), name);
    },

    displayPath: (threadId, area, name) => `${DISPLAY_HOME}/threads/${threadId}/user-data/${area}/${name}`,

    metaFile(threadId, name) {
      const problem = fileNameProblem(name);
      if (problem) throw new FileNameInvalidError(`Invalid file name: ${problem}.`);
      return path.join(threadDir(threadId), name);
    },

    async ensureArea(threadId, area) {
      const dir = areaDir(threadId, area);
      await mkdir(dir, { recursive: true });
      // Something with write access to user-data (the agent) could have swapped in a symlink.
      const realThreads = await realpath(threadsRoot);
      const real = await realInside(userDataDir(threadId), dir);
      if (!isWithin(realThreads, real)) throw new PathOutsideThreadError('The thread\'s folder leaves WARREN_HOME and is refused.');
      return real;
    },

    async resolveVirtual(threadId, virtual) {
      const segments = parseVirtualPath(virtual);
      const root = userDataDir(threadId);
      const target = path.join(root, ...segments);
      if (!isWithin(root, target)) throw new PathOutsideThreadError('The path leaves the thread\'s folder and is refused.');
      return realInside(root, target);
    },

    async listFiles(threadId, area) {
      let dir: string;
      try {
        dir = await realInside(userDataDir(threadId), areaDir(threadId, area));
      } catch (err) {
        if (err instanceof FileNotFoundError) return [];
        throw err;
      }
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if (isMissing(err)) return [];
        throw err;
      }
      const entries: FileEntry[] = [];
      for (const name of names.sort()) {
        if (isTempName(name)) continue;
        // A file removed between readdir and lstat is simply not listed.
        const stat = await lstat(path.join(dir, name)).catch(() => null);
        if (stat?.isFile()) entries.push({ name, size: stat.size, mtimeMs: stat.mtimeMs });
      }
      return entries;
    },

    async removeThread(threadId) {
      await rm(threadDir(threadId), { recursive: true, force: true });
    },
  };
}

/** How a full disk names a write under WARREN_HOME: `what`, or else the file's name. */
const homeTarget = (file: string, what?: string): WriteTarget => ({ where: 'WARREN_HOME', what: what ?? path.basename(file) });

/** Writes `data` to `file` atomically, through a reserved temporary name in the same folder. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: { what?: string; beforeRename?: () => Promise<void> } = {},
): Promise<void> {
  await writeAtomic(file, tempPathIn(path.dirname(file)), data, {
    target: homeTarget(file, options.what),
    ...(options.beforeRename ? { beforeRename: options.beforeRename } : {}),
  });
}

/** A file written under a temporary name beside its target, not yet renamed into place. */
export interface StagedFile {
  temp: string;
  target: string;
}

/**
 * Writes `data` beside `file` under a reserved temporary name. The caller renames it into place
 * once every file of the change is written, or removes it.
 */
export async function stageFile(file: string, data: string | Uint8Array, what?: string): Promise<StagedFile> {
  const staged = { temp: tempPathIn(path.dirname(file)), target: file };
  await writeTempFile(staged.temp, data, { target: homeTarget(file, what) });
  return staged;
}
