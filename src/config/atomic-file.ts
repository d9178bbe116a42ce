// Atomic file writes: a temporary file in the same folder, flushed, then renamed over the
// target. Readers see the old content or the new, never a torn file; a failed write leaves
// nothing behind. Used for configuration files and for threads' files alike.
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { asStorageError, type WriteTarget } from '../errors.js';

export interface AtomicWriteOptions {
  /** File mode of the new file (configuration holding secrets: 0o600). */
  mode?: number;
  /** How a full disk names this write to the client; by default, the file's base name. */
  target?: WriteTarget;
}

/**
 * Writes `data` to `temp`, a fresh path, and flushes it, for the caller to rename into place
 * (with other files, when several must change together). On failure `temp` is gone, and a full
 * disk is an InsufficientStorageError.
 */
export async function writeTempFile(temp: string, data: string | Uint8Array, options: AtomicWriteOptions & { target: WriteTarget }): Promise<void> {
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await rm(temp, { force: true });
    throw asStorageError(err, options.target);
  }
}

/** Writes `data` to `file` through `temp`, a fresh path in the same folder. */
export async function writeFileAtomic(file: string, temp: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  await writeTempFile(temp, data, { ...options, target: options.target ?? { what: path.basename(file) } });
  try {
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
