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
  /**
   * Awaited after the data is flushed and right before the rename; a throw leaves the target
   * as it was. A WriteGuard's `confirm` goes here.
   */
  beforeRename?: () => Promise<void>;
}

/**
 * Runs read-modify-writes of one shared file (or set of files) one at a time across every
 * process. `task` receives `confirm`, to await right before each rename: it throws when the
 * guard was lost meanwhile (a lease lapsed and another writer may have taken over), so a
 * stale writer renames nothing over a newer write.
 */
export interface WriteGuard {
  run<T>(task: (confirm: () => Promise<void>) => Promise<T>): Promise<T>;
}

/**
 * Writes `data` to `temp`, a fresh path, and flushes it, for the caller to rename into place
 * (with other files, when several must change together). On failure `temp` is gone, and a full
 * disk is a DiskFullError (WARREN_DISK_FULL).
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
    await options.beforeRename?.();
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
