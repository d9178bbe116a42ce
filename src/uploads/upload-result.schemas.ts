// What storing uploads answers: one entry per file, with where the agent sees it and its
// Markdown conversion. The upload route returns it; a chat channel's attachments get it too.
import { Type, type Static } from 'typebox';

export const UploadedFileSchema = Type.Object({
  filename: Type.String(),
  size: Type.Integer(),
  /** `.warren/threads/{id}/user-data/uploads/<name>` */
  path: Type.String(),
  /** `/mnt/user-data/uploads/<name>`, where the agent sees it. */
  virtual_path: Type.String(),
  artifact_url: Type.String(),
  markdown_file: Type.Optional(Type.String()),
  markdown_path: Type.Optional(Type.String()),
  markdown_virtual_path: Type.Optional(Type.String()),
  markdown_artifact_url: Type.Optional(Type.String()),
  /** Why a document was not converted. */
  message: Type.Optional(Type.String()),
});
export type UploadedFile = Static<typeof UploadedFileSchema>;

export const UploadResultSchema = Type.Object({
  success: Type.Boolean(),
  files: Type.Array(UploadedFileSchema),
  message: Type.String(),
});
export type UploadResult = Static<typeof UploadResultSchema>;
