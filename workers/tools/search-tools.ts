// DeerFlow's glob and grep: find files by name and lines by pattern, on virtual paths only
// (virtual-fs.ts resolves the root and refuses escapes). The walk never follows a symbolic link,
// so nothing outside the resolved root is reached, and it skips the folders and files DeerFlow
// ignores. Argument names, limits and answer texts are DeerFlow's (sandbox/tools.py).
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import { isTempName } from '../../src/workspace/thread-files.js';
import { FileNotFoundError, PathNotAFolderError } from '../../src/workspace/workspace.errors.js';
import { SandboxPermissionDeniedError } from '../sandbox/sandbox.errors.js';
import { describeFsError, type ResolvedPath, type VirtualFs } from '../sandbox/virtual-fs.js';
import { defineTool, nullable, StepDescription, threadIdOf } from './define-tool.js';
import { ToolArgumentInvalidError } from './tools.errors.js';

export const GLOB_DEFAULT_RESULTS = 200;
export const GLOB_MAX_RESULTS = 1000;
export const GREP_DEFAULT_RESULTS = 100;
export const GREP_MAX_RESULTS = 500;
/** grep skips bigger files, lines longer than this, and shows at most this much of a line. */
export const GREP_MAX_FILE_BYTES = 1024 * 1024;
const GREP_MAX_LINE_CHARS = 2000;
const GREP_SHOWN_LINE_CHARS = 200;
const BINARY_SNIFF_BYTES = 8192;

/** Names DeerFlow's walk skips (build output, caches, VCS and virtualenv folders, logs, upload staging). */
const IGNORED_NAMES = new Set([
  '.git', '.svn', '.hg', 'node_modules', '__pycache__', '.venv', 'venv', '.env', 'env', 'dist', 'build', '.next', '.nuxt',
  'target', 'out', 'logs', '.cache', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.idea', '.vscode', '.DS_Store', 'coverage',
]);
const IGNORED_PATTERNS = [/\.log$/, /\.tmp$/, /^\.upload-.*\.part$/, /\.pyc$/];
const ignored = (name: string) => IGNORED_NAMES.has(name) || IGNORED_PATTERNS.some((re) => re.test(name)) || isTempName(name);

/**
 * A glob over `/`-separated relative paths: `**` spans folders (and `**\/` may match none), `*` and
 * `?` stay inside one name, `[...]` is a class, `{a,b}` alternatives.
 */
export function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = pattern.indexOf('}', i);
      if (end === -1) out += '\\{';
      else {
        out += `(?:${pattern.slice(i + 1, end).split(',').map((alt) => globToRegExp(alt).source.slice(1, -1)).join('|')})`;
        i = end;
      }
    } else out += /[.+^$()|\\]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${out}$`);
}

interface WalkEntry {
  /** `/`-separated, relative to the walk's root. */
  relative: string;
  real: string;
  dirent: Dirent;
}

/** Every entry under `root`, depth first in name order, without symbolic links. */
async function* walk(root: string, relative = ''): AsyncGenerator<WalkEntry> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(path.join(root, relative), { withFileTypes: true });
  } catch {
    // A folder removed or unreadable mid-walk is skipped, as DeerFlow's os.walk does.
    return;
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of dirents) {
    // A link may lead anywhere (another thread, the host): never listed, never entered.
    if (ignored(dirent.name) || dirent.isSymbolicLink()) continue;
    const rel = relative ? `${relative}/${dirent.name}` : dirent.name;
    yield { relative: rel, real: path.join(root, rel), dirent };
    if (dirent.isDirectory()) yield* walk(root, rel);
  }
}

/** The folder or file to search, with DeerFlow's wording for a missing or wrong one. */
async function searchRoot(vfs: VirtualFs, threadId: string, virtualPath: string, want: 'dir' | 'any'): Promise<ResolvedPath & { isDir: boolean }> {
  let resolved: ResolvedPath;
  try {
    resolved = await vfs.resolveExisting(threadId, virtualPath);
  } catch (err) {
    if (err instanceof FileNotFoundError) throw new FileNotFoundError(`${want === 'dir' ? 'Directory' : 'Path'} not found: ${virtualPath}`);
    if (err instanceof SandboxPermissionDeniedError) throw new SandboxPermissionDeniedError(`Permission denied: ${virtualPath}`);
    throw err;
  }
  const stat = await lstat(resolved.real).catch((err: unknown) => {
    throw describeFsError(err, resolved.virtual);
  });
  if (want === 'dir' && !stat.isDirectory()) throw new PathNotAFolderError(`Path is not a directory: ${resolved.virtual}`);
  return { ...resolved, isDir: stat.isDirectory() };
}

/** DeerFlow's rule: 0 or less means the default, and no more than the cap. */
const clampResults = (asked: number | null | undefined, fallback: number, cap: number) => Math.min(asked === undefined || asked === null || asked <= 0 ? fallback : asked, cap);

const joinVirtual = (root: string, relative: string) => (relative ? `${root.replace(/\/$/, '')}/${relative}` : root);

const PATH_DESCRIPTION = 'Absolute virtual path of the folder to search, e.g. /mnt/user-data/workspace or /mnt/skills.';

function createGlobTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    description: StepDescription,
    pattern: Type.String({ minLength: 1, description: 'Glob relative to path, e.g. **/*.py or src/*.ts.' }),
    path: Type.String({ description: PATH_DESCRIPTION }),
    include_dirs: nullable(Type.Boolean({ description: 'Also list matching folders (default false).' })),
    max_results: nullable(Type.Integer({ description: `Most paths to return (default ${GLOB_DEFAULT_RESULTS}, at most ${GLOB_MAX_RESULTS}).` })),
  });
  return defineTool(
    {
      name: 'glob',
      description: 'Find files (and optionally folders) whose path relative to a folder matches a glob pattern. Build, cache and VCS folders are skipped.',
      schema,
    },
    async ({ pattern, path: virtualPath, include_dirs: includeDirs, max_results: maxResults }, config) => {
      const root = await searchRoot(vfs, threadIdOf(config), virtualPath, 'dir');
      const limit = clampResults(maxResults, GLOB_DEFAULT_RESULTS, GLOB_MAX_RESULTS);
      const matcher = globToRegExp(pattern.replace(/^\.\//, ''));
      const found: string[] = [];
      let truncated = false;
      for await (const entry of walk(root.real)) {
        const isDir = entry.dirent.isDirectory();
        if (isDir && !includeDirs) continue;
        if (!matcher.test(entry.relative)) continue;
        if (found.length === limit) {
          truncated = true;
          break;
        }
        found.push(joinVirtual(root.virtual, entry.relative));
      }
      if (found.length === 0) return `No files matched under ${root.virtual}`;
      const header = `Found ${found.length} paths under ${root.virtual}${truncated ? ` (showing first ${found.length})` : ''}`;
      const lines = found.map((p, i) => `${i + 1}. ${p}`);
      return [header, ...lines, ...(truncated ? ['Results truncated. Narrow the path or pattern to see fewer matches.'] : [])].join('\n');
    },
  );
}

/** Text of a file grep may search, or null for one it skips (too big, binary, unreadable). */
async function searchableText(real: string, size: number): Promise<string | null> {
  if (size > GREP_MAX_FILE_BYTES) return null;
  const bytes = await readFile(real).catch(() => null);
  if (!bytes || bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return null;
  return bytes.toString('utf8');
}

function createGrepTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    description: StepDescription,
    pattern: Type.String({ minLength: 1, description: 'Regular expression to look for (or plain text with literal=true).' }),
    path: Type.String({ description: 'Absolute virtual path of a file or folder to search.' }),
    glob: nullable(Type.String({ description: 'Only search files whose relative path or name matches this glob, e.g. *.py.' })),
    literal: nullable(Type.Boolean({ description: 'Treat pattern as plain text (default false).' })),
    case_sensitive: nullable(Type.Boolean({ description: 'Match case (default false).' })),
    max_results: nullable(Type.Integer({ description: `Most matching lines to return (default ${GREP_DEFAULT_RESULTS}, at most ${GREP_MAX_RESULTS}).` })),
  });
  return defineTool(
    {
      name: 'grep',
      description: 'Search file contents for a pattern. Returns path:line: text for each matching line. Binary files, files over 1 MB and symbolic links are skipped.',
      schema,
    },
    async ({ pattern, path: virtualPath, glob, literal, case_sensitive: caseSensitive, max_results: maxResults }, config) => {
      let matcher: RegExp;
      try {
        matcher = new RegExp(literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern, caseSensitive ? '' : 'i');
      } catch (err) {
        throw new ToolArgumentInvalidError(`Invalid regex pattern: ${err instanceof Error ? err.message : String(err)}`);
      }
      const root = await searchRoot(vfs, threadIdOf(config), virtualPath, 'any');
      const limit = clampResults(maxResults, GREP_DEFAULT_RESULTS, GREP_MAX_RESULTS);
      const filter = glob ? globToRegExp(glob.replace(/^\.\//, '')) : null;
      const matches: string[] = [];
      let truncated = false;
      const searchFile = async (real: string, virtual: string, size: number) => {
        const text = await searchableText(real, size);
        if (text === null) return;
        const lines = text.split(/\r?\n/);
        for (const [i, line] of lines.entries()) {
          if (line.length > GREP_MAX_LINE_CHARS || !matcher.test(line)) continue;
          const shown = line.length > GREP_SHOWN_LINE_CHARS ? `${line.slice(0, GREP_SHOWN_LINE_CHARS)}...` : line;
          matches.push(`${virtual}:${i + 1}: ${shown}`);
          // DeerFlow calls it truncated as soon as the limit is reached.
          if (matches.length === limit) {
            truncated = true;
            return;
          }
        }
      };
      if (!root.isDir) {
        const stat = await lstat(root.real);
        await searchFile(root.real, root.virtual, stat.size);
      } else {
        for await (const entry of walk(root.real)) {
          if (truncated) break;
          if (!entry.dirent.isFile()) continue;
          if (filter && !filter.test(entry.relative) && !filter.test(entry.dirent.name)) continue;
          const stat = await lstat(entry.real).catch(() => null);
          if (stat?.isFile()) await searchFile(entry.real, joinVirtual(root.virtual, entry.relative), stat.size);
        }
      }
      if (matches.length === 0) return `No matches found under ${root.virtual}`;
      const header = `Found ${matches.length} matches under ${root.virtual}${truncated ? ` (showing first ${matches.length})` : ''}`;
      return [header, ...matches, ...(truncated ? ['Results truncated. Narrow the path or add a glob filter.'] : [])].join('\n');
    },
  );
}

/** glob and grep over one worker's virtual file system (DeerFlow's `file:read` group). */
export function createSearchTools(vfs: VirtualFs): StructuredToolInterface[] {
  return [createGlobTool(vfs), createGrepTool(vfs)];
}
