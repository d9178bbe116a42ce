// Naming and housekeeping of uploads' Markdown conversions, over the conversion index
// (store/upload-index.ts): a conversion never overwrites an upload or another document's
// conversion, and a document's stale conversions go when it changes or is deleted.
import { rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fileNameProblem } from '../workspace/thread-files.js';
import type { ConversionIndex } from './upload-index.js';

export function isConvertible(filename: string, extensions: readonly string[]): boolean {
  return extensions.includes(path.extname(filename).toLowerCase());
}

function stemOf(name: string): string {
  return name.slice(0, name.length - path.extname(name).length);
}

/**
 * The Markdown name for `source`, from the thread's uploads alone (never from upload order):
 * `<stem>.md`, or `<source>.md` when another upload shares its stem (`report.pdf` and
 * `report.docx`, or an upload named `report.md`). Null when that name is an upload itself or
 * not a valid name.
 */
export function markdownNameFor(source: string, uploads: ReadonlySet<string>): string | null {
  const stem = stemOf(source);
  const shared = [...uploads].some((name) => name !== source && stemOf(name) === stem);
  const name = shared ? `${source}.md` : `${stem}.md`;
  return fileNameProblem(name) || uploads.has(name) ? null : name;
}

/**
 * Conversions whose name the rule now gives otherwise (an upload sharing their stem came or
 * went): [from, to] pairs, with the index updated to the new names.
 */
export function renameConversions(index: ConversionIndex, uploads: ReadonlySet<string>): [string, string][] {
  const moves: [string, string][] = [];
  for (const [md, source] of [...index]) {
    const wanted = markdownNameFor(source, uploads);
    if (!wanted || wanted === md || !uploads.has(source)) continue;
    const owner = index.get(wanted);
    if (owner !== undefined && owner !== source) continue;
    moves.push([md, wanted]);
  }
  for (const [from, to] of moves) {
    const source = index.get(from);
    index.delete(from);
    if (source !== undefined) index.set(to, source);
  }
  return moves;
}

/** Renames conversions (see renameConversions); one already gone is skipped. */
export async function moveConversions(dir: string, moves: readonly [string, string][]): Promise<void> {
  for (const [from, to] of moves) await rename(path.join(dir, from), path.join(dir, to)).catch(() => undefined); // gone already (or stuck): at worst a stray .md, never a lost upload
}

/** Takes the conversions of `source`, except `keep`, out of the index; returns their names. */
export function takeConversionsOf(index: ConversionIndex, source: string, keep?: string): string[] {
  const taken = [...index].filter(([md, owner]) => owner === source && md !== keep).map(([md]) => md);
  for (const md of taken) index.delete(md);
  return taken;
}

/** Removes conversion files; one already gone is fine, the goal is that it does not exist. */
export async function removeConversions(dir: string, names: Iterable<string>): Promise<void> {
  for (const md of names) await unlink(path.join(dir, md)).catch(() => undefined); // gone already (or stuck): at worst a stray .md, never a lost upload
}
