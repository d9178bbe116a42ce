// The agent's view of the file system. It sees `/mnt/user-data/{uploads,outputs,workspace}` (its
// thread's folders) and `/mnt/skills/{public,custom}`; this module turns those virtual paths into
// real ones and refuses everything else. Every real path is checked with realpath against its
// root, so `..`, NUL and symlinks planted by `bash` cannot reach another thread or the host.
// Error messages name virtual paths only: the model never learns where WARREN_HOME is.
import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { DiskFullError, isWarrenError } from '../../src/errors.js';
import {
  USER_DATA_AREAS,
  VIRTUAL_USER_DATA,
  fileNameProblem,
  isWithin,
  splitVirtualPath,
  type ThreadFiles,
  type UserDataArea,
} from '../../src/workspace/thread-files.js';
import {
  FileNameInvalidError,
  FileNotFoundError,
  PathInvalidError,
  PathNotAFileError,
  PathNotAFolderError,
  PathOutsideThreadError,
} from '../../src/workspace/workspace.errors.js';
import {
  SandboxFsFailedError,
  SandboxLinkRefusedError,
  SandboxPathExistsError,
  SandboxPathOutsideError,
  SandboxPermissionDeniedError,
  SandboxReadOnlyError,
} from './sandbox.errors.js';

export const VIRTUAL_SKILLS = '/mnt/skills';
export const SKILL_AREAS = ['public', 'custom'] as const;
/** Where the agent may write; uploads belong to the gateway, skills to the operator. */
export const WRITABLE_AREAS: readonly UserDataArea[] = ['outputs', 'workspace'];

export type SandboxArea = UserDataArea | 'skills';

export interface ResolvedPath {
  /** The canonical virtual path (`/mnt/user-data/workspace/a.txt`). */
  virtual: string;
  /** The real path, symlinks resolved; never shown to the model. */
  real: string;
  /** The area the real path lies in (after symlinks), or null for a root folder such as /mnt/user-data. */
  area: SandboxArea | null;
  writable: boolean;
}

export interface VirtualFs {
  /** An existing file or folder. FileNotFoundError when missing, SandboxPathOutsideError when it leads outside. */
  resolveExisting(threadId: string, virtualPath: string): Promise<ResolvedPath>;
  /**
   * Where a file may be written: an area the agent may write to, with missing parent folders
   * created one by one (each existing one checked first). An existing symlink at the target is
   * followed only when it stays inside a writable area.
   */
  resolveForWrite(threadId: string, virtualPath: string): Promise<ResolvedPath>;
  /** Children of the folders above the roots (`/`, `/mnt`), which exist only virtually; else null. */
  syntheticChildren(virtualPath: string): string[] | null;
}

const LAYOUT_HINT = `only ${VIRTUAL_USER_DATA}/{${USER_DATA_AREAS.join(',')}} and ${VIRTUAL_SKILLS}/{${SKILL_AREAS.join(',')}} exist`;

export interface AgentPath {
  virtual: string;
  kind: 'user-data' | 'skills';
  /** Segments under the root (`/mnt/user-data` or `/mnt/skills`). */
  rest: string[];
}

/** Validates the shape of a virtual path. Throws a path cause (workspace.errors.ts, sandbox.errors.ts) naming the path. */
export function parseAgentPath(virtualPath: string): AgentPath {
  if (typeof virtualPath !== 'string' || virtualPath.length === 0) throw new PathInvalidError('The path is empty.');
  if (!virtualPath.startsWith('/')) {
    throw new PathInvalidError(`${JSON.stringify(virtualPath)} is not absolute: use a full path such as ${VIRTUAL_USER_DATA}/workspace/notes.md.`);
  }
  let segments: string[];
  try {
    segments = splitVirtualPath(virtualPath);
  } catch (err) {
    // Same class, with the path named: the model needs to know which argument was refused.
    const message = `${JSON.stringify(virtualPath)}: ${(err as Error).message}`;
    throw err instanceof PathOutsideThreadError ? new PathOutsideThreadError(message) : new PathInvalidError(message);
  }
  const virtual = `/${segments.join('/')}`;
  const [mnt, root, area] = segments;
  if (mnt === 'mnt' && root === 'user-data') {
    if (area !== undefined && !(USER_DATA_AREAS as readonly string[]).includes(area)) {
      throw new FileNotFoundError(`${virtual} does not exist: ${LAYOUT_HINT}.`);
    }
    return { virtual, kind: 'user-data', rest: segments.slice(2) };
  }
  if (mnt === 'mnt' && root === 'skills') {
    if (area !== undefined && !(SKILL_AREAS as readonly string[]).includes(area)) {
      throw new FileNotFoundError(`${virtual} does not exist: ${LAYOUT_HINT}.`);
    }
    return { virtual, kind: 'skills', rest: segments.slice(2) };
  }
  throw new SandboxPathOutsideError(`${virtual} is outside the sandbox: ${LAYOUT_HINT}.`);
}

/** Turns a file-system error into one that names the virtual path instead of the real one. */
export function describeFsError(err: unknown, virtual: string): Error {
  // The atomic write already named the virtual path and said why (the disk is full).
  if (err instanceof DiskFullError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileNotFoundError(`${virtual} does not exist.`);
    case 'EISDIR':
      return new PathNotAFileError(`${virtual} is a folder, not a file.`);
    case 'EEXIST':
      return new SandboxPathExistsError(`${virtual} already exists.`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new SandboxPermissionDeniedError(`${virtual}: permission denied.`);
    case 'ELOOP':
      return new SandboxLinkRefusedError(`${virtual}: too many levels of symbolic links.`);
    default:
      // The cause keeps the real path for the logs; the message, which the model sees, does not.
      return new SandboxFsFailedError(`${virtual}: file system error${code ? ` (${code})` : ''}.`, { cause: err });
  }
}

export function createVirtualFs(deps: { files: ThreadFiles; skillsDir: string }): VirtualFs {
  const { files } = deps;
  const skillsDir = path.resolve(deps.skillsDir);

  /** realpath, with errors translated (the message must not carry the real path). */
  const real = async (target: string, virtual: string): Promise<string> => {
    try {
      return await realpath(target);
    } catch (err) {
      throw describeFsError(err, virtual);
    }
  };

  /** The real root of a parsed path; user-data areas are created on first use. */
  const rootOf = async (threadId: string, parsed: AgentPath): Promise<{ root: string; kind: AgentPath['kind'] }> => {
    if (parsed.kind === 'skills') return { root: await real(skillsDir, VIRTUAL_SKILLS), kind: 'skills' };
    const area = parsed.rest[0] as UserDataArea | undefined;
    for (const each of area ? [area] : USER_DATA_AREAS) {
      try {
        await files.ensureArea(threadId, each);
      } catch (err) {
        // Its own errors name no real path; a raw one (the area replaced by a file) would.
        if (isWarrenError(err)) throw err;
        throw describeFsError(err, `${VIRTUAL_USER_DATA}/${each}`);
      }
    }
    return { root: await real(files.userDataDir(threadId), VIRTUAL_USER_DATA), kind: 'user-data' };
  };

  /** Area of a real path under its root (the first segment), after every symlink was resolved. */
  const areaOf = (root: string, kind: AgentPath['kind'], realPath: string): SandboxArea | null => {
    if (kind === 'skills') return 'skills';
    const first = path.relative(root, realPath).split(path.sep)[0];
    return first && (USER_DATA_AREAS as readonly string[]).includes(first) ? (first as UserDataArea) : null;
  };

  const checked = (root: string, kind: AgentPath['kind'], realPath: string, virtual: string): ResolvedPath => {
    if (!isWithin(root, realPath)) throw new SandboxPathOutsideError(`${virtual} leads outside the sandbox (through a symbolic link) and is refused.`);
    const area = areaOf(root, kind, realPath);
    return { virtual, real: realPath, area, writable: area !== null && area !== 'skills' && WRITABLE_AREAS.includes(area) };
  };

  const refuseReadOnly = (parsed: AgentPath): void => {
    if (parsed.kind === 'skills') throw new SandboxReadOnlyError(`${parsed.virtual} is read-only: skills cannot be changed.`);
    const area = parsed.rest[0];
    if (area === 'uploads') {
      throw new SandboxReadOnlyError(`${parsed.virtual} is read-only: uploads belong to the user. Write to ${VIRTUAL_USER_DATA}/outputs or ${VIRTUAL_USER_DATA}/workspace.`);
    }
    if (parsed.rest.length < 2) throw new PathNotAFileError(`${parsed.virtual} is a folder, not a file.`);
  };

  return {
    async resolveExisting(threadId, virtualPath) {
      const parsed = parseAgentPath(virtualPath);
      const { root, kind } = await rootOf(threadId, parsed);
      const target = await real(path.join(root, ...parsed.rest), parsed.virtual);
      return checked(root, kind, target, parsed.virtual);
    },

    async resolveForWrite(threadId, virtualPath) {
      const parsed = parseAgentPath(virtualPath);
      refuseReadOnly(parsed);
      for (const segment of parsed.rest.slice(1)) {
        const problem = fileNameProblem(segment);
        if (problem) throw new FileNameInvalidError(`${parsed.virtual}: ${problem}.`);
      }
      const { root, kind } = await rootOf(threadId, parsed);
      const area = parsed.rest[0] as string;
      let dir = checked(root, kind, await real(path.join(root, area), parsed.virtual), parsed.virtual);
      const parents = parsed.rest.slice(1, -1);
      for (const [i, segment] of parents.entries()) {
        const shown = `${VIRTUAL_USER_DATA}/${[area, ...parents.slice(0, i + 1)].join('/')}`;
        const next = path.join(dir.real, segment);
        try {
          await mkdir(next);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw describeFsError(err, shown);
        }
        // Whether just made or already there (perhaps a symlink), the folder must stay inside.
        // Unresolvable is refused below, as a broken link.
        const linked = await realpath(next).catch(() => null);
        if (linked === null) throw new SandboxLinkRefusedError(`${shown} is a broken symbolic link and is refused.`);
        dir = checked(root, kind, linked, shown);
        if (!(await lstat(dir.real)).isDirectory()) throw new PathNotAFolderError(`${shown} is a file, not a folder.`);
      }
      if (!dir.writable) throw new SandboxReadOnlyError(`${parsed.virtual} leads into a read-only folder and is refused.`);
      const target = path.join(dir.real, parsed.rest.at(-1) as string);
      // Not there yet: the file will be created.
      const existing = await lstat(target).catch(() => null);
      if (existing?.isDirectory()) throw new PathNotAFileError(`${parsed.virtual} is a folder, not a file.`);
      let resolved: ResolvedPath = { virtual: parsed.virtual, real: target, area: dir.area, writable: true };
      if (existing?.isSymbolicLink()) {
        // Unresolvable is refused below, as a broken link.
        const linked = await realpath(target).catch(() => null);
        if (linked === null) throw new SandboxLinkRefusedError(`${parsed.virtual} is a broken symbolic link and is refused.`);
        resolved = checked(root, kind, linked, parsed.virtual);
      }
      if (!resolved.writable) throw new SandboxReadOnlyError(`${parsed.virtual} leads into a read-only folder and is refused.`);
      return resolved;
    },

    syntheticChildren(virtualPath) {
      if (!virtualPath.startsWith('/')) return null;
      let segments: string[];
      try {
        segments = splitVirtualPath(virtualPath);
      } catch {
        // Not a path we can list: resolveExisting reports why, with the path in the message.
        return null;
      }
      if (segments.length === 0) return ['mnt'];
      if (segments.length === 1 && segments[0] === 'mnt') return ['skills', 'user-data'];
      return null;
    },
  };
}
