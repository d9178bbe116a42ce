// The agent's file tools: ls, read_file, write_file and str_replace, on virtual paths only
// (virtual-fs.ts does the mapping and refuses escapes). Faults are thrown as errors with a
// message for the model; the agent's tool-error handling turns them into error tool messages.
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import { errnoCode } from '../../src/errors.js';
import { isTempName, writeFileAtomic } from '../../src/workspace/thread-files.js';
import { PathNotAFileError } from '../../src/workspace/workspace.errors.js';
import { SandboxReadOnlyError } from '../sandbox/sandbox.errors.js';
import { describeFsError, type ResolvedPath, type VirtualFs } from '../sandbox/virtual-fs.js';
import { defineTool, nullable, StepDescription, threadIdOf } from './define-tool.js';
import { looksBinary, readLineRange } from './text-lines.js';
import { ToolArgumentInvalidError, ToolEditAmbiguousError, ToolEditNoMatchError, ToolFileBinaryError, ToolFileTooLargeError } from './tools.errors.js';

/** Entries one `ls` shows; a bigger folder is cut with a note. */
export const LS_MAX_ENTRIES = 500;
/** Characters one `read_file` returns (about 25k tokens); the rest is read with start_line. */
export const READ_MAX_CHARS = 100_000;
/** Files str_replace loads whole. */
export const EDIT_MAX_BYTES = 10 * 1024 * 1024;

const PATH_DESCRIPTION = 'Absolute virtual path, under /mnt/user-data/{uploads,outputs,workspace} or /mnt/skills.';

async function statOf(resolved: ResolvedPath) {
  try {
    return await lstat(resolved.real);
  } catch (err) {
    throw describeFsError(err, resolved.virtual);
  }
}

function entryLine(dirent: Dirent, size: number | null): string {
  if (dirent.isDirectory()) return `dir   ${dirent.name}/`;
  if (dirent.isSymbolicLink()) return `link  ${dirent.name}`;
  if (dirent.isFile()) return `file  ${dirent.name}  (${size ?? 0} bytes)`;
  return `other ${dirent.name}`;
}

function createLsTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({ description: StepDescription, path: Type.String({ description: PATH_DESCRIPTION }) });
  return defineTool(
    {
      name: 'ls',
      description: 'List a folder: one line per entry with its type (dir, file, link) and, for files, the size in bytes. Start with /mnt/user-data.',
      schema,
    },
    async ({ path: virtualPath }, config) => {
      const synthetic = vfs.syntheticChildren(virtualPath);
      if (synthetic) return synthetic.map((name) => `dir   ${name}/`).join('\n');
      const resolved = await vfs.resolveExisting(threadIdOf(config), virtualPath);
      const stat = await statOf(resolved);
      if (!stat.isDirectory()) return `file  ${resolved.virtual}  (${stat.size} bytes)`;
      let dirents: Dirent[];
      try {
        dirents = (await readdir(resolved.real, { withFileTypes: true })).filter((d) => !isTempName(d.name));
      } catch (err) {
        throw describeFsError(err, resolved.virtual);
      }
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (dirents.length === 0) return `${resolved.virtual} is empty.`;
      const shown = dirents.slice(0, LS_MAX_ENTRIES);
      // A file removed since readdir is listed without its size.
      const lines = await Promise.all(
        shown.map(async (d) => entryLine(d, d.isFile() ? ((await lstat(path.join(resolved.real, d.name)).catch(() => null))?.size ?? null) : null)),
      );
      const header = `${resolved.virtual} (${dirents.length} ${dirents.length === 1 ? 'entry' : 'entries'})`;
      const more = dirents.length > shown.length ? [`[... ${dirents.length - shown.length} more entries not shown]`] : [];
      return [header, ...lines, ...more].join('\n');
    },
  );
}

/** An existing regular text file, or an error saying what it is instead. */
async function textFile(vfs: VirtualFs, threadId: string, virtualPath: string): Promise<ResolvedPath & { size: number }> {
  const resolved = await vfs.resolveExisting(threadId, virtualPath);
  const stat = await statOf(resolved);
  if (stat.isDirectory()) throw new PathNotAFileError(`${resolved.virtual} is a folder: use ls to see what is in it.`);
  if (!stat.isFile()) throw new PathNotAFileError(`${resolved.virtual} is not a regular file.`);
  let binary: boolean;
  try {
    binary = await looksBinary(resolved.real);
  } catch (err) {
    throw describeFsError(err, resolved.virtual);
  }
  if (binary) {
    throw new ToolFileBinaryError(
      `${resolved.virtual} is a binary file and cannot be read as text. Uploaded documents have a Markdown conversion beside them (same name, .md).`,
    );
  }
  return { ...resolved, size: stat.size };
}

function createReadFileTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    description: StepDescription,
    path: Type.String({ description: PATH_DESCRIPTION }),
    start_line: nullable(Type.Integer({ minimum: 1, description: 'First line to read, 1-based (default 1).' })),
    end_line: nullable(Type.Integer({ minimum: 1, description: 'Last line to read, inclusive (default: the end).' })),
  });
  return defineTool(
    {
      name: 'read_file',
      description: `Read a text file, whole or a range of lines (1-based, inclusive). At most ${READ_MAX_CHARS} characters come back per call; the reply says where to continue.`,
      schema,
    },
    async ({ path: virtualPath, start_line: startLine, end_line: endLine }, config) => {
      const start = startLine ?? 1;
      const end = endLine ?? undefined;
      if (end !== undefined && end < start) throw new ToolArgumentInvalidError(`end_line (${end}) is before start_line (${start}).`);
      const file = await textFile(vfs, threadIdOf(config), virtualPath);
      let read;
      try {
        read = await readLineRange(file.real, { start, end, maxChars: READ_MAX_CHARS });
      } catch (err) {
        throw describeFsError(err, file.virtual);
      }
      if (read.lastLine < start) {
        if (read.totalLines === 0) return `${file.virtual} is empty.`;
        throw new ToolArgumentInvalidError(`start_line ${start} is past the end of ${file.virtual}, which has ${read.totalLines} lines.`);
      }
      if (!read.capped) return read.text;
      return `${read.text}\n\n[read_file: stopped after line ${read.lastLine} at the ${READ_MAX_CHARS}-character limit; call read_file with start_line=${read.lastLine + 1} to read on]`;
    },
  );
}

function createWriteFileTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    description: StepDescription,
    path: Type.String({ description: 'Absolute virtual path under /mnt/user-data/outputs or /mnt/user-data/workspace.' }),
    content: Type.String({ description: 'The whole new content of the file, or what to add at its end with append.' }),
    append: nullable(Type.Boolean({ description: 'Add content at the end of the file instead of replacing it (default false).' })),
  });
  return defineTool(
    {
      name: 'write_file',
      description: 'Create or overwrite a text file. Missing folders are created. Put results meant for the user in /mnt/user-data/outputs, scratch work in /mnt/user-data/workspace; uploads and skills are read-only.',
      schema,
    },
    async ({ path: virtualPath, content, append }, config) => {
      const target = await vfs.resolveForWrite(threadIdOf(config), virtualPath);
      try {
        // Appending rewrites the whole file atomically too: a reader never sees half of it.
        const before = append ? await readFile(target.real, 'utf8').catch((err: unknown) => (errnoCode(err) === 'ENOENT' ? '' : Promise.reject(err))) : '';
        await writeFileAtomic(target.real, before + content, { what: target.virtual });
      } catch (err) {
        throw describeFsError(err, target.virtual);
      }
      return `${append ? 'Appended' : 'Wrote'} ${Buffer.byteLength(content, 'utf8')} bytes to ${target.virtual}.`;
    },
  );
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

function createStrReplaceTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    description: StepDescription,
    path: Type.String({ description: 'Absolute virtual path of an existing file under /mnt/user-data/outputs or /mnt/user-data/workspace.' }),
    old_str: Type.String({ description: 'Exact text to replace, including whitespace; it must appear exactly once unless replace_all is true.' }),
    new_str: Type.String({ description: 'Text to put in its place.' }),
    replace_all: nullable(Type.Boolean({ description: 'Replace every occurrence (default false).' })),
  });
  return defineTool(
    {
      name: 'str_replace',
      description: 'Edit a file by replacing an exact piece of text. Fails when the text is absent, or appears more than once without replace_all.',
      schema,
    },
    async ({ path: virtualPath, old_str: oldStr, new_str: newStr, replace_all: replaceAllArg }, config) => {
      const replaceAll = replaceAllArg ?? false;
      if (oldStr === '') throw new ToolArgumentInvalidError('old_str is empty: give the exact text to replace.');
      const file = await textFile(vfs, threadIdOf(config), virtualPath);
      if (!file.writable) throw new SandboxReadOnlyError(`${file.virtual} is read-only: copy it to /mnt/user-data/workspace or /mnt/user-data/outputs first.`);
      if (file.size > EDIT_MAX_BYTES) throw new ToolFileTooLargeError(`${file.virtual} is larger than ${EDIT_MAX_BYTES} bytes; edit it with bash instead.`);
      let text: string;
      try {
        text = await readFile(file.real, 'utf8');
      } catch (err) {
        throw describeFsError(err, file.virtual);
      }
      const count = countOccurrences(text, oldStr);
      if (count === 0) throw new ToolEditNoMatchError(`old_str was not found in ${file.virtual}. Read the file again and copy the text exactly.`);
      if (count > 1 && !replaceAll) {
        throw new ToolEditAmbiguousError(`old_str appears ${count} times in ${file.virtual}: add surrounding text to make it unique, or set replace_all to true.`);
      }
      // split/join, not String.replace: `$&` and friends in new_str must stay literal.
      const updated = replaceAll ? text.split(oldStr).join(newStr) : text.replace(oldStr, () => newStr);
      try {
        await writeFileAtomic(file.real, updated, { what: file.virtual });
      } catch (err) {
        throw describeFsError(err, file.virtual);
      }
      return `Replaced ${replaceAll ? count : 1} occurrence${(replaceAll ? count : 1) === 1 ? '' : 's'} in ${file.virtual}.`;
    },
  );
}

/** ls, read_file, write_file and str_replace over one worker's virtual file system. */
export function createFileTools(vfs: VirtualFs): StructuredToolInterface[] {
  return [createLsTool(vfs), createReadFileTool(vfs), createWriteFileTool(vfs), createStrReplaceTool(vfs)];
}
