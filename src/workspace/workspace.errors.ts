// The causes a thread's files are refused with: paths and names that cannot name a file inside
// the thread's folder, and files that are not there or not files. The gateway, the uploads and
// the agent's sandbox all meet them, since they all go through thread-files.ts.
import { defineError } from '../errors.js';

/** A path cannot be used as given: control characters, empty, relative, or outside the folders that can be served. */
export const PathInvalidError = defineError('WARREN_PATH_INVALID', 400);
/** A path would leave the thread's folder: `..`, a backslash, an encoded separator, or a symbolic link pointing out. */
export const PathOutsideThreadError = defineError('WARREN_PATH_OUTSIDE_THREAD', 403);
/** A path names a folder (or a device, a socket) where a regular file is wanted. */
export const PathNotAFileError = defineError('WARREN_PATH_NOT_A_FILE', 400);
/** A path names a file where a folder is wanted. */
export const PathNotAFolderError = defineError('WARREN_PATH_NOT_A_FOLDER', 400);
/** A name is not one plain file name: empty, `.`/`..`, a separator, control characters, over 255 bytes, or reserved. */
export const FileNameInvalidError = defineError('WARREN_FILE_NAME_INVALID', 400);
/** The file or folder asked for does not exist (or cannot be read, which answers the same). */
export const FileNotFoundError = defineError('WARREN_FILE_NOT_FOUND', 404);
/** A thread id that cannot name a folder: it must match THREAD_ID_PATTERN. */
export const ThreadIdInvalidError = defineError('WARREN_THREAD_ID_INVALID', 422);
