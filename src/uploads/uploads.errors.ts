// The causes an upload is refused with (a file name that cannot be stored is the workspace's
// WARREN_FILE_NAME_INVALID; a full disk is WARREN_DISK_FULL).
import { defineError } from '../errors.js';

/** A file, or the whole request, is larger than the upload limits allow. */
export const UploadTooLargeError = defineError('WARREN_UPLOAD_TOO_LARGE', 413);
/** The request carries more files than the upload limits allow. */
export const UploadTooManyFilesError = defineError('WARREN_UPLOAD_TOO_MANY_FILES', 413);
/** A file was sent in a multipart part not named `files`. */
export const UploadPartUnexpectedError = defineError('WARREN_UPLOAD_PART_UNEXPECTED', 400);
/** The request carries no file in a part named `files`. */
export const UploadEmptyError = defineError('WARREN_UPLOAD_EMPTY', 400);
/** A file would be stored under the name of a folder already in the thread's uploads. */
export const UploadFolderConflictError = defineError('WARREN_UPLOAD_FOLDER_CONFLICT', 409);
/** The multipart body cannot be parsed: no or a bad boundary, cut short, a part the parser refuses. */
export const UploadMalformedError = defineError('WARREN_UPLOAD_MALFORMED', 400);
/** The request carries more multipart parts (files and form fields) than the parser lets through. */
export const UploadTooManyPartsError = defineError('WARREN_UPLOAD_TOO_MANY_PARTS', 413);
/** The upload was not sent as multipart/form-data. */
export const UploadNotMultipartError = defineError('WARREN_UPLOAD_NOT_MULTIPART', 415);
