// Reads a few small parts of an OOXML zip whole, synchronously, for a converter that reads some
// XML itself next to its parser (pptx-numbering.ts). yauzl (zip.ts) waits for a turn of the event
// loop at every directory record and local header; in a conversion thread those turns, while the
// parser's tree is alive, let V8 finish more full collections, which cost a deck ~5 ms of CPU
// (#36). Here the central directory is read from the buffer in one pass, under the same caps.
import { inflateRawSync } from 'node:zlib';
import { corruptDirectory, corruptEntry, directoryCaps } from './zip.js';
import type { ZipLimits } from './options.js';

interface DirectoryEntry {
  fileName: string;
  compressionMethod: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeader: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_RECORD = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** A 16- or 32-bit field at its maximum: the real value is in the zip64 records. */
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

function u64(bytes: Buffer, at: number): number {
  const value = bytes.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('a zip64 field is out of range');
  return Number(value);
}

/** Where the central directory starts and how many records it holds, from the end records. */
function directoryBounds(bytes: Buffer): { offset: number; count: number } {
  // The end record is last but for its comment (at most 64 KiB); the last signature found wins.
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - U16_MAX); at--) {
    if (bytes.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory record');
  const count = bytes.readUInt16LE(eocd + 10);
  const offset = bytes.readUInt32LE(eocd + 16);
  if (count !== U16_MAX && offset !== U32_MAX) return { offset, count };
  const locator = eocd - 20;
  if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR) throw new Error('no zip64 end record locator');
  const record = u64(bytes, locator + 8);
  if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== ZIP64_EOCD) throw new Error('no zip64 end record');
  return { offset: u64(bytes, record + 48), count: u64(bytes, record + 32) };
}

/** The sizes and offset a record leaves at their maximum, from its zip64 extra field, in that order. */
function zip64Fields(bytes: Buffer, extraStart: number, extraEnd: number, entry: DirectoryEntry): void {
  for (let at = extraStart; at + 4 <= extraEnd; ) {
    const id = bytes.readUInt16LE(at);
    const size = bytes.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = (): number => {
        if (field + 8 > at + 4 + size) throw new Error('a zip64 extra field is too short');
        const value = u64(bytes, field);
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === U32_MAX) entry.uncompressedSize = next();
      if (entry.compressedSize === U32_MAX) entry.compressedSize = next();
      if (entry.localHeader === U32_MAX) entry.localHeader = next();
      return;
    }
    at += 4 + size;
  }
}

/** The central directory's records, checked against the caps as they are read. */
function readDirectory(bytes: Buffer, limits: ZipLimits, label: string): DirectoryEntry[] {
  try {
    const { offset, count } = directoryBounds(bytes);
    const check = directoryCaps(count, limits, label);
    const entries: DirectoryEntry[] = [];
    for (let at = offset, n = 0; n < count; n++) {
      if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_RECORD) throw new Error('a central directory record is missing');
      const nameEnd = at + 46 + bytes.readUInt16LE(at + 28);
      const extraEnd = nameEnd + bytes.readUInt16LE(at + 30);
      const next = extraEnd + bytes.readUInt16LE(at + 32);
      if (next > bytes.length) throw new Error('a central directory record overflows the archive');
      const entry: DirectoryEntry = {
        // Names are only compared with the ASCII names of OOXML parts, so CP437 needs no decoding.
        fileName: bytes.toString('utf8', at + 46, nameEnd),
        compressionMethod: bytes.readUInt16LE(at + 10),
        compressedSize: bytes.readUInt32LE(at + 20),
        uncompressedSize: bytes.readUInt32LE(at + 24),
        localHeader: bytes.readUInt32LE(at + 42),
      };
      zip64Fields(bytes, nameEnd, extraEnd, entry);
      check({ uncompressedSize: entry.uncompressedSize, encrypted: (bytes.readUInt16LE(at + 8) & 1) === 1 });
      entries.push(entry);
      at = next;
    }
    return entries;
  } catch (err) {
    throw corruptDirectory(err, label);
  }
}

/** Where an entry's data starts: after its local header, whose name and extra field lengths only it gives. */
function dataStart(bytes: Buffer, entry: DirectoryEntry): number {
  const header = entry.localHeader;
  if (header + 30 > bytes.length || bytes.readUInt32LE(header) !== LOCAL_HEADER) throw new Error('invalid local file header');
  const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
  if (start + entry.compressedSize > bytes.length) throw new Error('file data overflows the archive');
  return start;
}

/**
 * Inflates one entry whole, in one call. The output is capped at the declared size, and the
 * directory's caps capped the declared sizes of all entries, so a lying header cannot inflate
 * past the zip-bomb cap here either.
 */
function inflateWhole(bytes: Buffer, entry: DirectoryEntry, label: string): Buffer {
  try {
    const start = dataStart(bytes, entry);
    const data = bytes.subarray(start, start + entry.compressedSize);
    let inflated: Buffer;
    if (entry.compressionMethod === 0) inflated = Buffer.from(data);
    else if (entry.compressionMethod === 8) inflated = inflateRawSync(data, { maxOutputLength: entry.uncompressedSize + 1 });
    else throw new Error(`unsupported compression method ${entry.compressionMethod}`);
    if (inflated.length !== entry.uncompressedSize) {
      throw new Error(`its data does not inflate to the ${entry.uncompressedSize} bytes its header declares`);
    }
    return inflated;
  } catch (err) {
    throw corruptEntry(err, entry.fileName, label);
  }
}

/**
 * Reads the entries whose names `wanted` accepts, whole, under the caps of inspectZip (zip.ts).
 * Meant for small XML parts: each is held in memory. Throws ConversionError for a corrupt
 * archive or one that breaks a cap.
 */
export function readZipParts(bytes: Buffer, wanted: (name: string) => boolean, limits: ZipLimits, label: string): Map<string, Buffer> {
  const read = new Map<string, Buffer>();
  for (const entry of readDirectory(bytes, limits, label)) {
    if (entry.fileName.endsWith('/') || !wanted(entry.fileName) || read.has(entry.fileName)) continue;
    read.set(entry.fileName, inflateWhole(bytes, entry, label));
  }
  return read;
}
