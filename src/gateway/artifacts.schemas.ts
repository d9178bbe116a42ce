// /api/threads/{thread_id}/artifacts/{path}: a file of the thread, as raw bytes.
import { Type, type Static } from 'typebox';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

export const ArtifactParamsSchema = Type.Object({
  thread_id: Type.String({ pattern: THREAD_ID_PATTERN }),
  /** The virtual path without its leading slash: `mnt/user-data/outputs/report.md`. */
  '*': Type.String({ maxLength: 4096 }),
});

export const ArtifactQuerySchema = Type.Object({
  /** true: send as an attachment (Content-Disposition) rather than inline. */
  download: Type.Optional(Type.Boolean()),
});
export type ArtifactQuery = Static<typeof ArtifactQuerySchema>;
