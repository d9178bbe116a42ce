// A real disk that can be filled: a small tmpfs mounted on a fresh temp folder (tests run as
// root), filled with one file to the last block so the next write fails with ENOSPC.
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errnoCode } from '../../src/errors.js';

export interface SmallDisk {
  /** The mount point, empty when mounted. */
  dir: string;
  /** Blocks needed to hold `bytes`. */
  blocksFor(bytes: number): number;
  /** Runs `body` with the disk full but for `spare` blocks, and frees it again whatever happens. */
  whileFull<T>(spare: number, body: () => Promise<T>): Promise<T>;
  /** Unmounts and removes the mount point. */
  remove(): void;
}

/** Mounts a tmpfs of `sizeMiB` and at most `inodes` files; fails, saying why, when it cannot. */
export function mountSmallDisk(prefix: string, sizeMiB = 4, inodes = 512): SmallDisk {
  const dir = mkdtempSync(path.join(tmpdir(), `warren-${prefix}-`));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,nr_inodes=${inodes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmdirSync(dir);
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    throw new Error(`This test needs a real full disk: mounting a tmpfs on ${dir} failed (run it as root). ${stderr}`, { cause: err });
  }
  const blockSize = statfsSync(dir).bsize;

  // Chunks of whole blocks, so the filler ends on a block boundary and truncating it frees
  // exactly the blocks asked for.
  const fill = (spare: number): (() => void) => {
    const filler = path.join(dir, 'filler');
    const free = () => rmSync(filler, { force: true });
    try {
      const fd = openSync(filler, 'w');
      try {
        const chunk = Buffer.alloc(16 * blockSize);
        try {
          for (;;) writeSync(fd, chunk);
        } catch (err) {
          if (errnoCode(err) !== 'ENOSPC') throw err;
        }
        if (spare > 0) ftruncateSync(fd, fstatSync(fd).size - spare * blockSize);
      } finally {
        closeSync(fd);
      }
      const left = statfsSync(dir).bavail;
      if (left !== spare) throw new Error(`the filled disk has ${left} blocks free, not ${spare}`);
      return free;
    } catch (err) {
      free();
      throw err;
    }
  };

  return {
    dir,
    blocksFor: (bytes) => Math.ceil(bytes / blockSize),
    async whileFull(spare, body) {
      const free = fill(spare);
      try {
        return await body();
      } finally {
        free();
      }
    },
    remove() {
      try {
        execFileSync('umount', [dir]);
      } finally {
        rmdirSync(dir);
      }
    },
  };
}
