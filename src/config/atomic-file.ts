// Atomic file writes: a temporary file in the same folder, flushed, then renamed over the
// target. Readers see the old content or the new, never a torn file; a failed write leaves
// nothing behind. Used for configuration files and for threads' files alike.
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

export interface AtomicWriteOptions {
  /** File mode of the new file (configuration holding secrets: 0o600). */
  mode?: number;
}

/** Writes `data` to `file` through `temp`, a fresh path in the same folder. */
export async function writeFileAtomic(file: string, temp: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
