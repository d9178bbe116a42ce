// Zip-bomb guard for OOXML files. The parsers downstream (mammoth, SheetJS, officeparser) each
// inflate the whole archive into memory outside the V8 heap, where a worker's resourceLimits do
// not reach, so the archive is checked here first: the central directory's declared sizes and
// entry count, then the real inflated size of every entry (yauzl stops a stream that inflates
// past its declared size, so a lying header cannot slip through).
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fromBufferPromise } from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { ConversionError } from '../errors.js';
import type { ZipLimits } from './options.js';

function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

async function openZip(bytes: Buffer, label: string): Promise<ZipFile> {
  try {
    return await fromBufferPromise(bytes, {
      lazyEntries: true,
      validateEntrySizes: true,
      // Office writers emit odd names now and then; names are only compared, never used as paths.
      strictFileNames: false,
    });
  } catch (err) {
    throw new ConversionError(`${label} is not a readable zip archive (corrupt or truncated): ${errorText(err)}`, {
      cause: err,
    });
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The caps on a zip's central directory, checked entry by entry as it is read: the entry count,
 * the declared sizes, encryption. Throws the refusal. Shared by yauzl's reading here and the
 * synchronous one of zip-parts.ts.
 */
export function directoryCaps(
  entryCount: number,
  limits: ZipLimits,
  label: string,
): (entry: { uncompressedSize: number; encrypted: boolean }) => void {
  if (entryCount > limits.maxEntries) {
    throw new ConversionError(
      `${label} was refused: its zip archive has ${entryCount} entries, more than the limit of ${limits.maxEntries}.`,
    );
  }
  let count = 0;
  let declared = 0;
  return (entry) => {
    count++;
    declared += entry.uncompressedSize;
    if (count > limits.maxEntries) {
      throw new ConversionError(`${label} was refused: its zip archive has more than ${limits.maxEntries} entries.`);
    }
    if (declared > limits.maxUncompressedBytes) {
      throw new ConversionError(
        `${label} was refused: it would inflate to more than ${mib(limits.maxUncompressedBytes)} (a possible zip bomb).`,
      );
    }
    if (entry.encrypted) throw new ConversionError(`${label} is encrypted and cannot be read.`);
  };
}

/** A failure reading a zip's directory as the ConversionError to show (a refusal stays as it is). */
export function corruptDirectory(err: unknown, label: string): ConversionError {
  if (err instanceof ConversionError) return err;
  return new ConversionError(`${label} has a corrupt zip directory: ${errorText(err)}`, { cause: err });
}

/** A failure reading one entry as the ConversionError to show (a refusal stays as it is). */
export function corruptEntry(err: unknown, fileName: string, label: string): ConversionError {
  if (err instanceof ConversionError) return err;
  return new ConversionError(`${label} has a corrupt zip entry (${fileName.slice(0, 80)}): ${errorText(err)}`, {
    cause: err,
  });
}

/** Reads the central directory, enforcing the caps on declared sizes and entry count. */
async function readDirectory(zip: ZipFile, limits: ZipLimits, label: string): Promise<Entry[]> {
  const check = directoryCaps(zip.entryCount, limits, label);
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      entries.push(entry);
      check({ uncompressedSize: entry.uncompressedSize, encrypted: entry.isEncrypted() });
    }
  } catch (err) {
    throw corruptDirectory(err, label);
  }
  return entries;
}

/** Inflates one entry to nowhere under a cap on the inflated bytes of all entries so far. */
async function countEntry(zip: ZipFile, entry: Entry, budget: { left: number }, limits: ZipLimits, label: string): Promise<void> {
  try {
    const stream = await zip.openReadStreamPromise(entry);
    await pipeline(
      stream,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          budget.left -= chunk.length;
          done(
            budget.left < 0
              ? new ConversionError(
                  `${label} was refused: it inflates to more than ${mib(limits.maxUncompressedBytes)} (a possible zip bomb).`,
                )
              : null,
          );
        },
      }),
    );
  } catch (err) {
    throw corruptEntry(err, entry.fileName, label);
  }
}

/** Inflates every entry to nowhere, counting bytes, so the real size is known before parsing. */
async function verifyContents(zip: ZipFile, entries: Entry[], limits: ZipLimits, label: string): Promise<void> {
  const budget = { left: limits.maxUncompressedBytes };
  for (const entry of entries) {
    if (!entry.fileName.endsWith('/')) await countEntry(zip, entry, budget, limits, label);
  }
}

/**
 * Checks an OOXML zip against the caps and returns its entry names.
 * Throws ConversionError for a corrupt archive or one that breaks a cap.
 */
export async function inspectZip(bytes: Buffer, limits: ZipLimits, label: string): Promise<string[]> {
  const zip = await openZip(bytes, label);
  try {
    const entries = await readDirectory(zip, limits, label);
    await verifyContents(zip, entries, limits, label);
    return entries.map((e) => e.fileName);
  } finally {
    zip.close();
  }
}
