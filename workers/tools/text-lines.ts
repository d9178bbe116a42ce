// Reading text files for the model: spotting binary files, and taking a range of lines without
// loading a large file whole. Lines keep their `\r`, so what the model copies into str_replace
// matches the file byte for byte.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

const SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KiB: the same rule git and grep use for "binary". */
export async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

export interface LineRange {
  /** 1-based, inclusive. */
  start: number;
  /** 1-based, inclusive; undefined reads to the end. */
  end?: number;
  /** The returned text stops before it grows past this many characters. */
  maxChars: number;
}

export interface LinesRead {
  text: string;
  /** Last line included (start - 1 when none was). */
  lastLine: number;
  /** Lines in the file, when the read went to its end. */
  totalLines: number | null;
  /** Stopped by maxChars rather than by `end` or the end of the file. */
  capped: boolean;
}

export async function readLineRange(file: string, range: LineRange): Promise<LinesRead> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  const picked: string[] = [];
  let chars = 0;
  let lineNo = 0;
  let lastTaken = range.start - 1;
  let capped = false;
  let done = false;
  let partial = '';

  /** Takes one complete line; false once nothing more is wanted. */
  const take = (line: string): boolean => {
    lineNo += 1;
    if (lineNo < range.start) return true;
    if (range.end !== undefined && lineNo > range.end) return false;
    const cost = line.length + (picked.length > 0 ? 1 : 0);
    if (chars + cost > range.maxChars) {
      capped = true;
      // One line longer than the whole cap: give its beginning rather than nothing.
      if (picked.length === 0) {
        picked.push(line.slice(0, range.maxChars));
        lastTaken = lineNo;
      }
      return false;
    }
    picked.push(line);
    lastTaken = lineNo;
    chars += cost;
    return range.end === undefined || lineNo < range.end;
  };

  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (!take(line)) {
          done = true;
          break;
        }
      }
      if (done) break;
    }
    // The last line has no newline after it (or the file is empty: then there is no line).
    if (!done && partial !== '') done = !take(partial);
  } finally {
    stream.destroy();
  }
  const reachedEnd = !done;
  return {
    text: picked.join('\n'),
    lastLine: lastTaken,
    totalLines: reachedEnd ? lineNo : null,
    capped,
  };
}
