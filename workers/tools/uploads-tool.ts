// DeerFlow's list_uploaded_files: the files uploaded to this thread earlier, newest first, with
// an outline of their Markdown text on request. Reads the thread's uploads area through
// ThreadFiles (regular files only: no symbolic links, no staging files) and the conversion index,
// so a document's `.md` conversion is shown as the document's outline, not as a second upload.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import { readConversionIndex } from '../../src/uploads/uploads.js';
import { virtualPath, type ThreadFiles } from '../../src/workspace/thread-files.js';
import { defineTool, threadIdOf } from './define-tool.js';

export const UPLOADS_DEFAULT_RESULTS = 20;
export const UPLOADS_MAX_RESULTS = 100;
const OUTLINE_MAX_HEADINGS = 50;
const PREVIEW_LINES = 5;
const OUTLINE_MAX_BYTES = 2 * 1024 * 1024;
/** DeerFlow's upload staging files (Warren's own temporary names never reach the list). */
const STAGING_NAME = /^\.upload-.*\.part$/;

interface OutlineEntry {
  title: string;
  line: number;
}

interface UploadedFile {
  filename: string;
  size: number;
  path: string;
  extension: string;
  outline?: OutlineEntry[];
  outline_preview?: string[];
}

/** Markdown headings with their line numbers; without any, the first lines of text instead. */
async function outlineOf(real: string): Promise<Pick<UploadedFile, 'outline' | 'outline_preview'>> {
  const bytes = await readFile(real).catch(() => null);
  if (!bytes || bytes.length > OUTLINE_MAX_BYTES || bytes.subarray(0, 8192).includes(0)) return {};
  const lines = bytes.toString('utf8').split(/\r?\n/);
  const outline: OutlineEntry[] = [];
  for (const [i, line] of lines.entries()) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) outline.push({ title: heading[1] as string, line: i + 1 });
    if (outline.length === OUTLINE_MAX_HEADINGS) break;
  }
  if (outline.length > 0) return { outline };
  return { outline_preview: lines.map((l) => l.trim()).filter((l) => l !== '').slice(0, PREVIEW_LINES) };
}

export function createListUploadedFilesTool(files: ThreadFiles): StructuredToolInterface {
  const schema = Type.Object({
    include_outline: Type.Optional(
      Type.Union([Type.Boolean(), Type.Array(Type.String()), Type.Null()], {
        description: 'true: an outline (Markdown headings) for every file; a list of filenames: only for those (default false).',
      }),
    ),
    max_results: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: `Most files to list (default ${UPLOADS_DEFAULT_RESULTS}, 1 to ${UPLOADS_MAX_RESULTS}).` }),
    ),
  });
  return defineTool(
    {
      name: 'list_uploaded_files',
      description: 'List the files the user uploaded to this thread earlier (newest first), with their paths under /mnt/user-data/uploads and, on request, an outline of their text.',
      schema,
    },
    async ({ include_outline: includeOutline, max_results: maxResults }, config) => {
      const threadId = threadIdOf(config);
      const limit = Math.min(Math.max(maxResults ?? UPLOADS_DEFAULT_RESULTS, 1), UPLOADS_MAX_RESULTS);
      const [entries, index] = await Promise.all([files.listFiles(threadId, 'uploads'), readConversionIndex(files, threadId)]);
      if (entries.length === 0) return { files: [], message: 'No historical uploaded files in this thread.' };
      const names = new Set(entries.map((e) => e.name));
      const conversionOf = new Map([...index].map(([md, source]) => [source, md]));
      const stem = (name: string) => name.slice(0, name.length - path.extname(name).length);
      const stems = new Set(entries.filter((e) => path.extname(e.name).toLowerCase() !== '.md').map((e) => stem(e.name)));
      // A `.md` made from an upload (named in the index, or a same-stem sibling) is that upload's text.
      const isConversion = (name: string) =>
        path.extname(name).toLowerCase() === '.md' && ((index.has(name) && names.has(index.get(name) as string)) || stems.has(stem(name)));
      const uploads = entries.filter((e) => !isConversion(e.name) && !STAGING_NAME.test(e.name)).sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
      const shown = uploads.slice(0, limit);
      const wantsOutline = (name: string) => includeOutline === true || (Array.isArray(includeOutline) && includeOutline.includes(name));
      const dir = await files.ensureArea(threadId, 'uploads');
      const listed: UploadedFile[] = await Promise.all(
        shown.map(async (e) => {
          const file: UploadedFile = { filename: e.name, size: e.size, path: virtualPath('uploads', e.name), extension: path.extname(e.name).toLowerCase() };
          if (!wantsOutline(e.name)) return file;
          const text = path.extname(e.name).toLowerCase() === '.md' ? e.name : (conversionOf.get(e.name) ?? `${stem(e.name)}.md`);
          return names.has(text) ? { ...file, ...(await outlineOf(path.join(dir, text))) } : file;
        }),
      );
      const result: Record<string, unknown> = { files: listed, total_count: uploads.length };
      if (uploads.length > shown.length) {
        const omitted = new Map<string, number>();
        for (const e of uploads.slice(limit)) {
          const ext = path.extname(e.name).toLowerCase() || '(no extension)';
          omitted.set(ext, (omitted.get(ext) ?? 0) + 1);
        }
        result.truncated = true;
        result.omitted_summary = [...omitted].map(([ext, n]) => `${n} ${ext}`).join(', ');
      }
      result.message = `Found ${uploads.length} historical file(s).`;
      return result;
    },
  );
}
