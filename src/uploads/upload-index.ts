// Which Markdown file in a thread's uploads is the conversion of which upload. Kept in
// threads/{id}/uploads-index.json, beside user-data so the agent never sees it. The gateway
// writes it when it converts or deletes, under the thread's uploads lock (every API replica
// shares the file); the workers read it to tell the agent about uploads.
import { readFile } from 'node:fs/promises';
import { stageFile, writeFileAtomic, type StagedFile, type ThreadFiles } from '../workspace/thread-files.js';

const INDEX_FILE = 'uploads-index.json';

/** Markdown name → the upload it was converted from. */
export type ConversionIndex = Map<string, string>;

export async function readConversionIndex(files: ThreadFiles, threadId: string): Promise<ConversionIndex> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(files.metaFile(threadId, INDEX_FILE), 'utf8'));
  } catch {
    // Missing or unreadable: conversions then count as uploads, which only makes naming more
    // careful (a new conversion picks the `<file>.md` name), never destructive.
    return new Map();
  }
  const entries = raw !== null && typeof raw === 'object' && 'conversions' in raw ? raw.conversions : null;
  const index: ConversionIndex = new Map();
  if (entries !== null && typeof entries === 'object') {
    for (const [md, source] of Object.entries(entries)) if (typeof source === 'string') index.set(md, source);
  }
  return index;
}

const serialise = (index: ConversionIndex) =>
  `${JSON.stringify({ conversions: Object.fromEntries([...index].sort(([a], [b]) => a.localeCompare(b))) }, null, 2)}\n`;
const WHAT = 'the uploads index';

/** `beforeRename` is the lock holder's `confirm`, so a holder whose lease lapsed writes nothing. */
export async function writeConversionIndex(files: ThreadFiles, threadId: string, index: ConversionIndex, beforeRename: () => Promise<void>): Promise<void> {
  await writeFileAtomic(files.metaFile(threadId, INDEX_FILE), serialise(index), { what: WHAT, beforeRename });
}

/** Writes the index under a temporary name, for the caller to rename with the files it describes. */
export function stageConversionIndex(files: ThreadFiles, threadId: string, index: ConversionIndex): Promise<StagedFile> {
  return stageFile(files.metaFile(threadId, INDEX_FILE), serialise(index), WHAT);
}
