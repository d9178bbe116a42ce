// Zip-bomb guard for OOXML files. The parsers downstream (mammoth, SheetJS, officeparser) each
// inflate the whole archive into memory outside the V8 heap, where a worker's resourceLimits do
// not reach, so the archive is checked here first: the central directory's declared sizes and
// entry count, then the real inflated size of every entry (yauzl stops a stream that inflates
// past its declared size, so a lying header cannot slip through).
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inflateRawSync } from 'node:zlib';
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
    throw corruptEntry(err, entry, label);
  }
}

function corruptEntry(err: unknown, entry: Entry, label: string): ConversionError {
  if (err instanceof ConversionError) return err;
  return new ConversionError(`${label} has a corrupt zip entry (${entry.fileName.slice(0, 80)}): ${errorText(err)}`, {
    cause: err,
  });
}

/**
 * Inflates one entry whole, in one synchronous call: a stream per entry costs a thread-pool
 * round trip per chunk, which for the few dozen small parts of a deck came to ~15 ms a document
 * (#36). The output is capped at the declared size, and readDirectory capped the declared sizes
 * of all entries, so a lying header cannot inflate past the zip-bomb cap here either.
 */
async function inflateWhole(zip: ZipFile, bytes: Buffer, entry: Entry, label: string): Promise<Buffer> {
  try {
    // The local header's length is only known from the header itself; yauzl also checks bounds.
    const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true });
    const data = bytes.subarray(fileDataStart, fileDataStart + entry.compressedSize);
    let inflated: Buffer;
    if (entry.compressionMethod === 0) inflated = Buffer.from(data);
    else if (entry.compressionMethod === 8) inflated = inflateRawSync(data, { maxOutputLength: entry.uncompressedSize + 1 });
    else throw new Error(`unsupported compression method ${entry.compressionMethod}`);
    if (inflated.length !== entry.uncompressedSize) {
      throw new Error(`its data does not inflate to the ${entry.uncompressedSize} bytes its header declares`);
    }
    return inflated;
  } catch (err) {
    throw corruptEntry(err, entry, label);
  }
}

/**
 * Reads the entries whose names `wanted` accepts, under the caps of inspectZip. Meant for the
 * small XML parts a converter reads itself: each is held in memory whole.
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
    const read = new Map<string, Buffer>();
    for (const entry of entries) {
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName) || read.has(entry.fileName)) continue;
      read.set(entry.fileName, await inflateWhole(zip, bytes, entry, label));
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
