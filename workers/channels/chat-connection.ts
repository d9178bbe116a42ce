// What every platform's connection is given, and what it does with a file a user sent: stores
// it as an upload of the conversation's thread (converted to Markdown where it can be), named to
// the agent by its virtual path.
import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { tempPathIn, virtualPath, type ThreadFiles } from '../../src/store/thread-files.js';
import type { UploadWriter } from '../../src/uploads/thread-uploads.js';
import type { ChatRuns } from './chat-runs.js';
import type { RunAnswers } from './run-answers.js';

export interface ChatUploadDeps {
  uploads: Pick<UploadWriter, 'store'>;
  files: Pick<ThreadFiles, 'ensureArea'>;
}

/** The platform-independent part of a connection's dependencies. */
export interface ChatConnectionDeps extends ChatUploadDeps {
  chatRuns: ChatRuns;
  /** Follows the runs whose answers this connection sends. */
  answers: Pick<RunAnswers, 'follow' | 'stopAll'>;
  /** Warren's upload limit for one file. */
  maxFileBytes: number;
  log: Logger;
}

/** Stores the bytes as the thread's upload `filename`; the virtual path the agent reads (the Markdown, when converted). */
export async function storeChatUpload(deps: ChatUploadDeps, threadId: string, filename: string, bytes: Uint8Array): Promise<string> {
  const tempPath = tempPathIn(await deps.files.ensureArea(threadId, 'uploads'));
  await writeFile(tempPath, bytes);
  const { files } = await deps.uploads.store(threadId, [{ filename, tempPath, size: bytes.byteLength }]);
  const stored = files[0];
  return stored?.markdown_virtual_path ?? stored?.virtual_path ?? virtualPath('uploads', filename);
}
