// The causes the agent's sandbox refuses a path or a command with (the model reads the message).
// Path shapes, missing files and names are the workspace's causes (workspace.errors.ts).
import { defineError } from '../../src/errors.js';

/** The path is outside what the agent can see (/mnt/user-data, /mnt/skills), or a symbolic link leads out of it. */
export const SandboxPathOutsideError = defineError('WARREN_SANDBOX_PATH_OUTSIDE', 403);
/** A write to what the agent may only read: skills, uploads, or a folder that leads into them. */
export const SandboxReadOnlyError = defineError('WARREN_SANDBOX_READ_ONLY', 403);
/** A symbolic link the sandbox does not follow: broken, or looping. */
export const SandboxLinkRefusedError = defineError('WARREN_SANDBOX_LINK_REFUSED', 403);
/** The file system refused the access (EACCES, EPERM, EROFS). */
export const SandboxPermissionDeniedError = defineError('WARREN_SANDBOX_PERMISSION_DENIED', 403);
/** Something already exists where a file was to be created. */
export const SandboxPathExistsError = defineError('WARREN_SANDBOX_PATH_EXISTS', 400);
/** Any other file-system failure; the message names the virtual path and the code, the cause keeps the rest for the logs. */
export const SandboxFsFailedError = defineError('WARREN_SANDBOX_FS_FAILED', 500);
/** The sandbox could not run a command at all (its folder or its process could not be made). */
export const SandboxCommandFailedError = defineError('WARREN_SANDBOX_COMMAND_FAILED', 500);
