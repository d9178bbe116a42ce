// Uploads: files land in the thread's uploads folder under temporary names, and each PDF or
// Office document is converted to Markdown in the conversion sandbox. Then, under the thread's
// uploads lock (shared by every API replica; the slow conversion stays outside it), the
// conversions and the index are written beside their targets, and only once every file of the
// request is written is any of it renamed into place. So a full disk, or any failure before
// that, leaves the thread's previous files as they were. A failed conversion never fails the
// upload: the entry says why instead.
import { lstat, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Multipart } from '@fastify/multipart';
import type { FastifyBaseLogger } from 'fastify';
import { CONVERTIBLE_EXTENSIONS } from '../convert/convert.js';
import { BadRequestError, ConflictError, ConversionError, NotFoundError } from '../errors.js';
import { fileNameProblem, isTempName, stageFile, virtualPath, type StagedFile } from '../store/thread-files.js';
import type { Success } from './common.schemas.js';
import { createLimiter } from './concurrency.js';
import type { GatewayDeps } from './gateway-deps.js';
import { readConversionIndex, stageConversionIndex, writeConversionIndex, type ConversionIndex } from '../store/upload-index.js';
import { isConvertible, markdownNameFor, moveConversions, removeConversions, renameConversions, takeConversionsOf } from './upload-conversions.js';
import { receiveUploads, type ReceivedFile } from './upload-receiver.js';
import type { UploadedFile, UploadLimitsReply, UploadList, UploadResult } from './uploads.schemas.js';

type UploadsDeps = Pick<GatewayDeps, 'files' | 'settings' | 'onConversion' | 'uploadsLock' | 'conversionPool'>;
type Conversion = { markdown: string } | { message: string };

export function createUploadsService(deps: UploadsDeps, log: FastifyBaseLogger) {
  const { files, settings } = deps;
  const conversions = createLimiter(settings.maxConcurrentConversions);

  const describe = (threadId: string, name: string) => {
    const virtual = virtualPath('uploads', name);
    return {
      path: files.displayPath(threadId, 'uploads', name),
      virtual_path: virtual,
      artifact_url: `/api/threads/${threadId}/artifacts${virtual.split('/').map(encodeURIComponent).join('/')}`,
    };
  };

  /** Converts the received documents (in parallel, within the limiter): Markdown or the reason why not. */
  async function convertAll(documents: ReceivedFile[]): Promise<Map<string, Conversion>> {
    const outcomes = await Promise.all(
      documents.map(async ({ filename: name, tempPath }): Promise<[string, Conversion]> => {
        try {
          const markdown = await conversions.run(async () => {
            const started = performance.now();
            log.debug({ filename: name }, 'document conversion started');
            let converted = false;
            try {
              const markdown = await deps.conversionPool.convert(await readFile(tempPath), name, settings.conversion);
              converted = true;
              return markdown;
            } finally {
              const format = path.extname(name).toLowerCase() || 'none';
              const ms = performance.now() - started;
              deps.onConversion?.(format, ms / 1000);
              // Slow formats (LibreOffice's) show here first; the reason for a failure is logged with the upload.
              log.info({ filename: name, format, duration_ms: Math.round(ms), converted }, 'document conversion finished');
            }
          });
          return [name, { markdown }];
        } catch (err) {
          if (!(err instanceof ConversionError)) throw err;
          return [name, { message: err.message }];
        }
      }),
    );
    return new Map(outcomes);
  }

  /** Stages one document's Markdown under a name no other upload owns; returns that name or why not. */
  async function place(dir: string, source: string, markdown: string, index: ConversionIndex, uploads: ReadonlySet<string>, staged: StagedFile[]) {
    const mdName = markdownNameFor(source, uploads);
    if (!mdName) return { message: `${source} was not converted: its Markdown name is taken by another upload.` };
    staged.push(await stageFile(path.join(dir, mdName), markdown, `the Markdown conversion ${mdName}`));
    index.set(mdName, source);
    return { markdown_file: mdName };
  }

  /** One file per name: a name sent twice in one request is kept last, like a re-upload. */
  async function lastOfEachName(received: ReceivedFile[]): Promise<Map<string, ReceivedFile>> {
    const byName = new Map<string, ReceivedFile>();
    for (const file of received) {
      const earlier = byName.get(file.filename);
      if (earlier) await rm(earlier.tempPath, { force: true });
      byName.set(file.filename, file);
    }
    return byName;
  }

  /** Under the thread's uploads lock: writes the Markdown and the index, then renames everything into place. */
  async function store(
    threadId: string,
    dir: string,
    byName: Map<string, ReceivedFile>,
    converted: Map<string, Conversion>,
    confirm: () => Promise<void>,
  ): Promise<UploadResult> {
    const present = new Set((await readdir(dir)).filter((n) => !isTempName(n)));
    for (const name of byName.keys()) {
      // Checked before anything is renamed, so a refusal keeps nothing of the request.
      if (present.has(name) && (await lstat(path.join(dir, name))).isDirectory()) {
        throw new ConflictError(`The thread's uploads already hold a folder named ${name}.`);
      }
    }
    for (const name of byName.keys()) present.add(name);
    const index = await readConversionIndex(files, threadId);
    // What was just uploaded is an upload now, even if a conversion had that name before.
    for (const name of byName.keys()) index.delete(name);
    const uploads = new Set([...present].filter((name) => !index.has(name)));

    // Conversions and the index, written beside their targets until everything is on disk.
    const written: StagedFile[] = [];
    const stale: string[] = [];
    const entries: UploadedFile[] = [];
    const notes: string[] = [];
    try {
      for (const file of byName.values()) {
        const entry: UploadedFile = { filename: file.filename, size: file.size, ...describe(threadId, file.filename) };
        const conversion = converted.get(file.filename);
        if (conversion) {
          const outcome = 'markdown' in conversion ? await place(dir, file.filename, conversion.markdown, index, uploads, written) : conversion;
          // An older conversion of a previous version of this file would now be wrong.
          stale.push(...takeConversionsOf(index, file.filename, 'markdown_file' in outcome ? outcome.markdown_file : undefined));
          if ('markdown_file' in outcome) {
            const md = describe(threadId, outcome.markdown_file);
            Object.assign(entry, { markdown_file: outcome.markdown_file, markdown_path: md.path, markdown_virtual_path: md.virtual_path, markdown_artifact_url: md.artifact_url });
          } else {
            log.info({ thread_id: threadId, filename: file.filename, reason: outcome.message }, 'upload not converted');
            entry.message = outcome.message;
            notes.push(outcome.message);
          }
        }
        entries.push(entry);
      }
      // Earlier documents that now share a stem with a new upload (or no longer do) follow the rule.
      const moves = renameConversions(index, uploads);
      for (const [from, to] of moves) notes.push(`${from} is now ${to}: another upload shares its name's stem.`);
      written.push(await stageConversionIndex(files, threadId, index));
      // The lock is still ours (and renewed): what follows is not a stale holder's.
      await confirm();
      // Nothing from here on needs space. Stale conversions go before the renames, so one whose
      // name a new conversion took is replaced, not removed.
      await removeConversions(dir, stale);
      await moveConversions(dir, moves);
      for (const file of byName.values()) await rename(file.tempPath, path.join(dir, file.filename));
      for (const file of written) await rename(file.temp, file.target);
    } finally {
      // The received files' temporary names are the caller's to remove; these are this function's.
      await Promise.all(written.map((f) => rm(f.temp, { force: true })));
    }
    const count = `Uploaded ${entries.length} file${entries.length === 1 ? '' : 's'}.`;
    return { success: true, files: entries, message: [count, ...notes].join(' ') };
  }

  return {
    limits(): UploadLimitsReply {
      const { maxFiles, maxFileBytes, maxRequestBytes } = settings.uploads;
      return {
        max_files: maxFiles,
        max_file_size: maxFileBytes,
        max_total_size: maxRequestBytes,
        allowed_types: ['*/*'],
        converted_extensions: [...CONVERTIBLE_EXTENSIONS],
      };
    },

    async upload(threadId: string, parts: AsyncIterable<Multipart>): Promise<UploadResult> {
      const dir = await files.ensureArea(threadId, 'uploads');
      const received = await receiveUploads(parts, dir, settings.uploads);
      try {
        const byName = await lastOfEachName(received);
        const converted = await convertAll([...byName.values()].filter((f) => isConvertible(f.filename, CONVERTIBLE_EXTENSIONS)));
        return await deps.uploadsLock(threadId).run((confirm) => store(threadId, dir, byName, converted, confirm));
      } finally {
        // Renamed files are gone from their temporary names; anything else must not linger.
        await Promise.all(received.map((f) => rm(f.tempPath, { force: true })));
      }
    },

    async list(threadId: string): Promise<UploadList> {
      const found = await files.listFiles(threadId, 'uploads');
      const entries = found.map((f) => ({
        filename: f.name,
        size: f.size,
        ...describe(threadId, f.name),
        extension: path.extname(f.name).toLowerCase(),
        modified: f.mtimeMs / 1000,
      }));
      return { files: entries, count: entries.length };
    },

    async remove(threadId: string, filename: string): Promise<Success> {
      const problem = fileNameProblem(filename);
      if (problem) throw new BadRequestError(`Invalid file name: ${problem}.`);
      return deps.uploadsLock(threadId).run(async (confirm) => {
        const dir = await files.resolveVirtual(threadId, virtualPath('uploads', '')).catch((err: unknown) => {
          throw err instanceof NotFoundError ? new NotFoundError(`File not found: ${filename}`) : err;
        });
        const target = path.join(dir, filename);
        // Missing or unreadable, the answer is the same 404.
        const info = await lstat(target).catch(() => null);
        if (!info) throw new NotFoundError(`File not found: ${filename}`);
        if (info.isDirectory()) throw new BadRequestError(`${filename} is a folder, not an uploaded file.`);
        const index = await readConversionIndex(files, threadId);
        await confirm();
        await unlink(target);
        index.delete(filename);
        await removeConversions(dir, takeConversionsOf(index, filename));
        const present = (await readdir(dir)).filter((n) => !isTempName(n) && !index.has(n));
        const moves = renameConversions(index, new Set(present));
        await writeConversionIndex(files, threadId, index, confirm);
        await moveConversions(dir, moves);
        return { success: true, message: `Deleted ${filename}` };
      });
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
