// /api/threads/{thread_id}/uploads: upload, list and delete a thread's files.
import { Type, type Static } from 'typebox';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

/** DeerFlow's limits answer, plus what Warren turns into Markdown. */
export const UploadLimitsSchema = Type.Object({
  max_files: Type.Integer(),
  /** Bytes of one file. */
  max_file_size: Type.Integer(),
  /** Bytes of all files of one request. */
  max_total_size: Type.Integer(),
  /** Media types accepted: every type (`*\/*`); the agent reads any file. */
  allowed_types: Type.Array(Type.String()),
  /** Extensions that also get a Markdown copy. */
  converted_extensions: Type.Array(Type.String()),
});
export type UploadLimitsReply = Static<typeof UploadLimitsSchema>;

export const UploadListEntrySchema = Type.Object({
  filename: Type.String(),
  size: Type.Integer(),
  path: Type.String(),
  virtual_path: Type.String(),
  artifact_url: Type.String(),
  /** With its dot (`.pdf`); empty when the name has none. */
  extension: Type.String(),
  /** Modification time, seconds since the epoch (fractional). */
  modified: Type.Number(),
});
export type UploadListEntry = Static<typeof UploadListEntrySchema>;

export const UploadListSchema = Type.Object({ files: Type.Array(UploadListEntrySchema), count: Type.Integer() });
export type UploadList = Static<typeof UploadListSchema>;

export const UploadFileParamsSchema = Type.Object({
  thread_id: Type.String({ pattern: THREAD_ID_PATTERN }),
  filename: Type.String({ maxLength: 1024 }),
});
