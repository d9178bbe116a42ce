// A branch's files: the source thread's folder (uploads, outputs, workspace and the uploads'
// index) copied into the new thread's. Files are not checkpointed, so what is copied is the
// thread's files as they are now. Symbolic links are left out (one written by the agent could
// point anywhere), and so are half-written temporary files.
import { cp, lstat } from 'node:fs/promises';
import path from 'node:path';
import { isTempName, type ThreadFiles } from './thread-files.js';

/** `copied`, or `not_found` when the source thread has no folder yet. */
export async function copyThreadFiles(files: Pick<ThreadFiles, 'threadDir'>, fromThreadId: string, toThreadId: string): Promise<'copied' | 'not_found'> {
  const from = files.threadDir(fromThreadId);
  try {
    await lstat(from);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'not_found';
    throw err;
  }
  await cp(from, files.threadDir(toThreadId), {
    recursive: true,
    errorOnExist: false,
    force: false,
    filter: async (source) => !isTempName(path.basename(source)) && !(await lstat(source)).isSymbolicLink(),
  });
  return 'copied';
}
