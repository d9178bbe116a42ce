// Storing uploads: files already received under temporary names in the thread's uploads folder
// (a multipart request in the API, a chat attachment in a worker) are converted and put in
// place. Each PDF or Office document is converted to Markdown in the conversion sandbox. Then,
// under the thread's uploads lock (shared by every process; the slow conversion stays outside
// it), the conversions and the index are written beside their targets, and only once every file
// is written is any of it renamed into place. So a full disk, or any failure before that, leaves
// the thread's previous files as they were. A failed conversion never fails the upload: the
// entry says why instead.
import { lstat, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BaseLogger } from 'pino';
import type { WriteGuard } from '../config/atomic-file.js';
import { CONVERTIBLE_EXTENSIONS } from '../convert/convert.js';
import type { ConversionPool } from '../convert/pool.js';
import type { SandboxLimits } from '../convert/sandbox.js';
import { ConversionError } from '../errors.js';
import { isTempName, stageFile, virtualPath, type StagedFile, type ThreadFiles } from '../workspace/thread-files.js';
import { readConversionIndex, stageConversionIndex, type ConversionIndex } from './upload-index.js';
import { createLimiter } from './concurrency.js';
import { UploadFolderConflictError } from './uploads.errors.js';
import { isConvertible, markdownNameFor, moveConversions, removeConversions, renameConversions, takeConversionsOf } from './upload-conversions.js';
import type { UploadedFile, UploadResult } from './upload-result.schemas.js';

/** A file written under a temporary name in the uploads folder, waiting to be stored. */
export interface ReceivedFile {
  filename: string;
  tempPath: string;
  size: number;
}

export interface UploadWriterDeps {
  files: ThreadFiles;
  /** Serialises changes to one thread's uploads and their index across every process. */
  uploadsLock: (threadId: string) => WriteGuard;
  conversionPool: Pick<ConversionPool, 'convert'>;
  /** Memory, time and LibreOffice settings for document conversion. */
  conversion: SandboxLimits;
  /** Conversions running at once in this process; more wait their turn. */
  maxConcurrentConversions: number;
  /** Observes each conversion's duration in seconds, by file extension (for /metrics). */
  onConversion?: (format: string, seconds: number) => void;
}

type Conversion = { markdown: string } | { message: string };

export function createUploadWriter(deps: UploadWriterDeps, log: Pick<BaseLogger, 'info' | 'debug'>) {
  const { files } = deps;
  const conversions = createLimiter(deps.maxConcurrentConversions);

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
              const markdown = await deps.conversionPool.convert(await readFile(tempPath), name, deps.conversion);
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
        throw new UploadFolderConflictError(`The thread's uploads already hold a folder named ${name}.`);
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
    describe,
    /**
     * Converts and stores files received in the thread's uploads folder (`files.ensureArea`).
     * Their temporary files are gone afterwards, whether or not storing succeeded.
     */
    async store(threadId: string, received: ReceivedFile[]): Promise<UploadResult> {
      try {
        const dir = await files.ensureArea(threadId, 'uploads');
        const byName = await lastOfEachName(received);
        const converted = await convertAll([...byName.values()].filter((f) => isConvertible(f.filename, CONVERTIBLE_EXTENSIONS)));
        return await deps.uploadsLock(threadId).run((confirm) => store(threadId, dir, byName, converted, confirm));
      } finally {
        // Renamed files are gone from their temporary names; anything else must not linger.
        await Promise.all(received.map((f) => rm(f.tempPath, { force: true })));
      }
    },
  };
}

export type UploadWriter = ReturnType<typeof createUploadWriter>;
