// Serving a thread's files: resolve the virtual path safely (thread-files), work out the headers
// (type from the extension, active content as attachment) and the byte range. The route streams
// the file; nothing here reads it.
import { constants, type ReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ThreadFiles } from '../workspace/thread-files.js';
import { PathNotAFileError } from '../workspace/workspace.errors.js';
import { contentTypeFor, isActiveContent } from './content-types.js';

export type ByteRange = { start: number; end: number };

/**
 * Reads a `Range` header against a file size: a range to send, 'unsatisfiable' (416), or null
 * to send the whole file (no header, another unit, several ranges or a malformed value, which
 * RFC 9110 lets a server ignore).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return null;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (to !== '' && Number(to) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** `attachment; filename*=UTF-8''…` (RFC 6266 / 8187). */
export function attachmentHeader(filename: string): string {
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}

export interface Artifact {
  size: number;
  headers: Record<string, string>;
  /** Opens the bytes to send: the whole file, or one range. */
  open(range?: ByteRange): Promise<ReadStream>;
}

export function createArtifactsService(files: ThreadFiles) {
  return {
    async get(threadId: string, virtual: string, download: boolean): Promise<Artifact> {
      const real = await files.resolveVirtual(threadId, virtual);
      const info = await stat(real);
      if (info.isDirectory()) throw new PathNotAFileError('The path is a folder, not a file.');
      if (!info.isFile()) throw new PathNotAFileError('The path is not a regular file.');
      const name = path.basename(real);
      const extension = path.extname(name);
      const headers: Record<string, string> = {
        'content-type': contentTypeFor(extension),
        'accept-ranges': 'bytes',
        'last-modified': info.mtime.toUTCString(),
        'cache-control': 'private, no-cache',
      };
      if (download || isActiveContent(extension)) headers['content-disposition'] = attachmentHeader(name);
      // Belt and braces for active content that a browser opens anyway.
      if (isActiveContent(extension)) headers['content-security-policy'] = "default-src 'none'; sandbox";
      return {
        size: info.size,
        headers,
        // The resolved path has no symlink left; O_NOFOLLOW refuses one swapped in since.
        async open(range) {
          const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
          // The stream closes the handle when it ends or is destroyed (client gone).
          return handle.createReadStream(range ?? {});
        },
      };
    },
  };
}

export type ArtifactsService = ReturnType<typeof createArtifactsService>;
