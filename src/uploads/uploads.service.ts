// Uploads: a multipart request's files are received under temporary names in the thread's
// uploads folder and stored (converted, then renamed into place) by the shared upload writer
// (src/uploads/thread-uploads.ts); listing and deleting them, with their conversions, are here.
import { lstat, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Multipart } from '@fastify/multipart';
import type { Identity } from '../auth/identity.js';
import type { FastifyBaseLogger } from 'fastify';
import { CONVERTIBLE_EXTENSIONS } from '../convert/convert.js';
import { fileNameProblem, isTempName, virtualPath } from '../workspace/thread-files.js';
import { FileNameInvalidError, FileNotFoundError, PathNotAFileError } from '../workspace/workspace.errors.js';
import { readConversionIndex, writeConversionIndex } from './upload-index.js';
import { moveConversions, removeConversions, renameConversions, takeConversionsOf } from './upload-conversions.js';
import { createUploadWriter } from './thread-uploads.js';
import type { UploadResult } from './upload-result.schemas.js';
import type { Success } from '../gateway/common.schemas.js';
import type { GatewayDeps } from '../gateway/gateway-deps.js';
import { receiveUploads } from './upload-receiver.js';
import type { UploadLimitsReply, UploadList } from './uploads.schemas.js';

type UploadsDeps = Pick<GatewayDeps, 'files' | 'settings' | 'onConversion' | 'uploadsLock' | 'conversionPool'> & {
  /** DeerFlow's UI uploads before the thread's first run: the upload makes the thread id the caller's. */
  claimThread(caller: Identity, threadId: string): Promise<void>;
};
export function createUploadsService(deps: UploadsDeps, log: FastifyBaseLogger) {
  const { files, settings } = deps;
  const writer = createUploadWriter(
    {
      files,
      uploadsLock: deps.uploadsLock,
      conversionPool: deps.conversionPool,
      conversion: settings.conversion,
      maxConcurrentConversions: settings.maxConcurrentConversions,
      ...(deps.onConversion ? { onConversion: deps.onConversion } : {}),
    },
    log,
  );
  const { describe } = writer;

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

    async upload(threadId: string, parts: AsyncIterable<Multipart>, caller: Identity): Promise<UploadResult> {
      await deps.claimThread(caller, threadId);
      const dir = await files.ensureArea(threadId, 'uploads');
      return writer.store(threadId, await receiveUploads(parts, dir, settings.uploads));
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
      if (problem) throw new FileNameInvalidError(`Invalid file name: ${problem}.`);
      return deps.uploadsLock(threadId).run(async (confirm) => {
        const dir = await files.resolveVirtual(threadId, virtualPath('uploads', '')).catch((err: unknown) => {
          throw err instanceof FileNotFoundError ? new FileNotFoundError(`File not found: ${filename}`) : err;
        });
        const target = path.join(dir, filename);
        // Missing or unreadable, the answer is the same 404.
        const info = await lstat(target).catch(() => null);
        if (!info) throw new FileNotFoundError(`File not found: ${filename}`);
        if (info.isDirectory()) throw new PathNotAFileError(`${filename} is a folder, not an uploaded file.`);
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
