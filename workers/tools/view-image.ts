// `view_image`, offered to vision models only: reads an image from the thread (or a skill) and
// returns it as content blocks, a short text and the image as a base64 data URL, so the model
// sees it in the tool message. The type is taken from the file's bytes, not its name.
import { open } from 'node:fs/promises';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import { isWarrenError } from '../../src/errors.js';
import type { ThreadFiles } from '../../src/workspace/thread-files.js';
import { PathNotAFileError } from '../../src/workspace/workspace.errors.js';
import { createVirtualFs, describeFsError } from '../sandbox/virtual-fs.js';
import { defineTool, threadIdOf } from './define-tool.js';
import { ToolFileTooLargeError, ToolImageTypeUnsupportedError } from './tools.errors.js';

export const VIEW_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** The image type the leading bytes announce, or null. */
export function sniffImage(bytes: Buffer): ImageMime | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const ascii = bytes.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  return null;
}

export type ImageToolContent = [{ type: 'text'; text: string }, { type: 'image_url'; image_url: { url: string } }];

export function createViewImageTool(deps: { files: ThreadFiles; skillsDir: string }): StructuredToolInterface {
  const vfs = createVirtualFs(deps);
  const schema = Type.Object({
    // DeerFlow's name for it, so that a model prompted the DeerFlow way calls it right.
    image_path: Type.String({ description: 'Absolute virtual path of a PNG, JPEG, GIF or WebP image, e.g. /mnt/user-data/uploads/chart.png.' }),
  });
  return defineTool(
    {
      name: 'view_image',
      description: `Look at an image file (PNG, JPEG, GIF or WebP, at most ${VIEW_IMAGE_MAX_BYTES / 1024 / 1024} MiB) from the thread's files.`,
      schema,
    },
    async ({ image_path: virtualPath }, config): Promise<ImageToolContent> => {
      const resolved = await vfs.resolveExisting(threadIdOf(config), virtualPath);
      let bytes: Buffer;
      try {
        const handle = await open(resolved.real, 'r');
        try {
          const stat = await handle.stat();
          if (!stat.isFile()) throw new PathNotAFileError(`${resolved.virtual} is not a file.`);
          if (stat.size > VIEW_IMAGE_MAX_BYTES) {
            throw new ToolFileTooLargeError(`${resolved.virtual} is ${stat.size} bytes; view_image takes at most ${VIEW_IMAGE_MAX_BYTES}. Make a smaller copy with bash first.`);
          }
          bytes = await handle.readFile();
        } finally {
          await handle.close();
        }
      } catch (err) {
        // Ours (just above) already name the virtual path; only raw file-system errors need translating.
        if (isWarrenError(err)) throw err;
        throw describeFsError(err, resolved.virtual);
      }
      const mime = sniffImage(bytes);
      if (!mime) throw new ToolImageTypeUnsupportedError(`${resolved.virtual} is not a PNG, JPEG, GIF or WebP image.`);
      return [
        { type: 'text', text: `Image ${resolved.virtual} (${mime}, ${bytes.length} bytes):` },
        { type: 'image_url', image_url: { url: `data:${mime};base64,${bytes.toString('base64')}` } },
      ];
    },
  );
}
