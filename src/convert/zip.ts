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

/** Reads the central directory, enforcing the caps on declared sizes and entry count. */
async function readDirectory(zip: ZipFile, limits: ZipLimits, label: string): Promise<Entry[]> {
  if (zip.entryCount > limits.maxEntries) {
    throw new ConversionError(
      `${label} was refused: its zip archive has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}.`,
    );
  }
  const entries: Entry[] = [];
  let declared = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      entries.push(entry);
      declared += entry.uncompressedSize;
      if (entries.length > limits.maxEntries) {
        throw new ConversionError(
          `${label} was refused: its zip archive has more than ${limits.maxEntries} entries.`,
        );
      }
      if (declared > limits.maxUncompressedBytes) {
        throw new ConversionError(
          `${label} was refused: it would inflate to more than ${mib(limits.maxUncompressedBytes)} ` +
            '(a possible zip bomb).',
        );
      }
      if (entry.isEncrypted()) {
        throw new ConversionError(`${label} is encrypted and cannot be read.`);
      }
    }
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    throw new ConversionError(`${label} has a corrupt zip directory: ${errorText(err)}`, { cause: err });
  }
  return entries;
}

/** Inflates one entry under a cap on the inflated bytes of the whole read; `keep` false drops the bytes. */
async function inflateEntry(
  zip: ZipFile,
  entry: Entry,
  budget: { left: number },
  limits: ZipLimits,
  label: string,
  keep: boolean,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    const stream = await zip.openReadStreamPromise(entry);
    await pipeline(
      stream,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          budget.left -= chunk.length;
          if (keep) chunks.push(chunk);
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
    if (err instanceof ConversionError) throw err;
    throw new ConversionError(`${label} has a corrupt zip entry (${entry.fileName.slice(0, 80)}): ${errorText(err)}`, {
      cause: err,
    });
  }
  return Buffer.concat(chunks);
}

/**
 * Reads the entries whose names `wanted` accepts, under the caps of inspectZip.
 * Throws ConversionError for a corrupt archive or one that breaks a cap.
 */
export async function readZipEntries(
  bytes: Buffer,
  wanted: (name: string) => boolean,
  limits: ZipLimits,
  label: string,
): Promise<Map<string, Buffer>> {
  const zip = await openZip(bytes, label);
  try {
    const entries = await readDirectory(zip, limits, label);
    const budget = { left: limits.maxUncompressedBytes };
    const read = new Map<string, Buffer>();
    for (const entry of entries) {
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName) || read.has(entry.fileName)) continue;
      read.set(entry.fileName, await inflateEntry(zip, entry, budget, limits, label, true));
    }
    return read;
  } finally {
    zip.close();
  }
}

/** Inflates every entry to nowhere, counting bytes, so the real size is known before parsing. */
async function verifyContents(zip: ZipFile, entries: Entry[], limits: ZipLimits, label: string): Promise<void> {
  const budget = { left: limits.maxUncompressedBytes };
  for (const entry of entries) {
    if (!entry.fileName.endsWith('/')) await inflateEntry(zip, entry, budget, limits, label, false);
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
