// Streams the `files` parts of a multipart upload to temporary files in the uploads folder,
// enforcing the limits as the bytes arrive. Nothing is renamed here: on any failure every
// temporary file of the request is removed, so a refused request leaves nothing behind.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import { asStorageError, errnoCode } from '../errors.js';
import { fileNameProblem, tempPathIn } from '../workspace/thread-files.js';
import { FileNameInvalidError } from '../workspace/workspace.errors.js';
import type { ReceivedFile } from './thread-uploads.js';
import type { UploadLimits } from '../gateway/gateway-deps.js';
import { MAX_FORM_FIELDS, multipartFault } from './multipart-faults.js';
import { UploadEmptyError, UploadPartUnexpectedError, UploadTooLargeError, UploadTooManyFilesError } from './uploads.errors.js';

export const UPLOAD_FIELD = 'files';


export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Math.round(mib * 10) / 10} MiB` : `${bytes} bytes`;
}

/** The name a client sent, reduced to its basename (either separator) and checked. */
export function uploadFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const problem = fileNameProblem(base);
  if (problem) throw new FileNameInvalidError(`Invalid file name ${JSON.stringify(raw ?? '')}: ${problem}.`);
  return base;
}

/** Busboy options matching the limits; one more file than allowed is let through to be refused by name. */
export function multipartOptions(limits: UploadLimits) {
  return {
    // Names are reduced to their basename here, with our rules, not busboy's.
    preservePath: true,
    // Browsers send UTF-8 file names without saying so.
    defParamCharset: 'utf8',
    limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles + 1, fields: MAX_FORM_FIELDS, fieldSize: 64 * 1024, parts: limits.maxFiles + 1 + MAX_FORM_FIELDS },
  };
}

function byteCounter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        onBytes(chunk.length);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** The parser's errors reworded as the client's faults, and a full disk named by the file being written. */
function translate(err: unknown, limits: UploadLimits, writing: ReceivedFile | undefined, sawPart: boolean): unknown {
  const code = errnoCode(err);
  if (code === 'FST_FILES_LIMIT') return new UploadTooManyFilesError(`Too many files: at most ${limits.maxFiles} per request.`);
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new UploadTooLargeError(`A file is larger than the limit of ${formatBytes(limits.maxFileBytes)}.`);
  return multipartFault(err, limits, sawPart) ?? asStorageError(err, { where: 'WARREN_HOME', what: writing ? `the upload ${writing.filename}` : 'an upload' });
}

export async function receiveUploads(parts: AsyncIterable<Multipart>, dir: string, limits: UploadLimits): Promise<ReceivedFile[]> {
  const received: ReceivedFile[] = [];
  let total = 0;
  let sawPart = false;
  try {
    for await (const part of parts) {
      sawPart = true;
      if (part.type !== 'file') continue;
      if (part.fieldname !== UPLOAD_FIELD) {
        part.file.resume();
        throw new UploadPartUnexpectedError(`Unexpected file part "${part.fieldname}": send files in parts named "${UPLOAD_FIELD}".`);
      }
      if (received.length >= limits.maxFiles) {
        part.file.resume();
        throw new UploadTooManyFilesError(`Too many files: at most ${limits.maxFiles} per request.`);
      }
      let filename: string;
      try {
        filename = uploadFileName(part.filename);
      } catch (err) {
        part.file.resume();
        throw err;
      }
      const file: ReceivedFile = { filename, tempPath: tempPathIn(dir), size: 0 };
      received.push(file);
      const counter = byteCounter((n) => {
        file.size += n;
        total += n;
        if (total > limits.maxRequestBytes) {
          throw new UploadTooLargeError(`The upload is larger than the limit of ${formatBytes(limits.maxRequestBytes)} per request.`);
        }
      });
      await pipeline(part.file, counter, createWriteStream(file.tempPath, { flags: 'wx', mode: 0o644 }));
      if (part.file.truncated) {
        throw new UploadTooLargeError(`${filename} is larger than the limit of ${formatBytes(limits.maxFileBytes)} per file.`);
      }
    }
  } catch (err) {
    await Promise.all(received.map((f) => rm(f.tempPath, { force: true })));
    throw translate(err, limits, received.at(-1), sawPart);
  }
  if (received.length === 0) throw new UploadEmptyError(`No files were uploaded: send them in multipart parts named "${UPLOAD_FIELD}".`);
  return received;
}
