// Naming and housekeeping of uploads' Markdown conversions, over the conversion index
// (store/upload-index.ts): a conversion never overwrites an upload or another document's
// conversion, and a document's stale conversions go when it changes or is deleted.
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { fileNameProblem } from '../store/thread-files.js';
import type { ConversionIndex } from '../store/upload-index.js';

export function isConvertible(filename: string, extensions: readonly string[]): boolean {
  return extensions.includes(path.extname(filename).toLowerCase());
}

/**
 * The Markdown name for `source`: `<stem>.md`, or `<source>.md` when the first is taken, where
 * taken means an upload of that name exists, or another document's conversion owns it.
 * Null when both are taken (or too long).
 */
export function markdownNameFor(source: string, index: ConversionIndex, isUpload: (name: string) => boolean): string | null {
  const stem = source.slice(0, source.length - path.extname(source).length);
  for (const candidate of [`${stem}.md`, `${source}.md`]) {
    if (fileNameProblem(candidate)) continue;
    const owner = index.get(candidate);
    if (owner === source) return candidate;
    if (owner === undefined && !isUpload(candidate)) return candidate;
  }
  return null;
}

/** Takes the conversions of `source`, except `keep`, out of the index; returns their names. */
export function takeConversionsOf(index: ConversionIndex, source: string, keep?: string): string[] {
  const taken = [...index].filter(([md, owner]) => owner === source && md !== keep).map(([md]) => md);
  for (const md of taken) index.delete(md);
  return taken;
}

/** Removes conversion files; one already gone is fine, the goal is that it does not exist. */
export async function removeConversions(dir: string, names: Iterable<string>): Promise<void> {
  for (const md of names) await unlink(path.join(dir, md)).catch(() => undefined);
}
