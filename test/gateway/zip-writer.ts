// A minimal zip writer for tests. It writes exactly what it is told, including what a careful
// archiver never would (absolute names, `..`, symlinks, lying sizes), so the installer's
// refusals can be tested.
import { constants, crc32, createDeflate, createDeflateRaw, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  name: string;
  data?: string | Buffer;
  /** Unix mode for the external attributes; 0o120777 makes a symlink. */
  mode?: number;
  /** Overrides the uncompressed size written in both headers. */
  declaredSize?: number;
  encrypted?: boolean;
  store?: boolean;
  /** Data already deflated (a bomb too big to hold), with its real size and CRC. */
  deflated?: Deflated;
}

export interface Deflated {
  body: Buffer;
  size: number;
  crc: number;
}

/**
 * `bytes` copies of `fill` (zeros by default), deflated a MiB at a time so the test never holds
 * them all: raw deflate for zip entries, or with the zlib wrapper that PDF's FlateDecode uses.
 */
export async function deflatedZeros(bytes: number, options: { fill?: number; zlib?: boolean } = {}): Promise<Deflated> {
  const chunk = Buffer.alloc(1024 * 1024, options.fill ?? 0);
  const deflater = options.zlib ? createDeflate({ level: constants.Z_BEST_COMPRESSION }) : createDeflateRaw({ level: constants.Z_BEST_COMPRESSION });
  const parts: Buffer[] = [];
  deflater.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<void>((resolve, reject) => {
    deflater.on('end', resolve);
    deflater.on('error', reject);
  });
  let crc = 0;
  for (let left = bytes; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = crc32(piece, crc);
    if (!deflater.write(piece)) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await done;
  return { body: Buffer.concat(parts), size: bytes, crc };
}

export function buildZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '');
    const isDir = e.name.endsWith('/');
    const method = (e.store || isDir) && !e.deflated ? 0 : 8;
    const body = e.deflated?.body ?? (method === 8 ? deflateRawSync(data) : data);
    const size = e.declaredSize ?? e.deflated?.size ?? data.length;
    const flags = 0x0800 | (e.encrypted ? 0x1 : 0);
    const crc = e.deflated?.crc ?? crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? (isDir ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export function skillMd(front: Record<string, unknown> | string, body = '# Instructions\n\nDo the thing.\n'): string {
  const yaml =
    typeof front === 'string'
      ? front
      : Object.entries(front)
          .map(([k, v]) => `${k}: ${Array.isArray(v) ? `\n${v.map((t) => `  - ${String(t)}`).join('\n')}` : JSON.stringify(v)}`)
          .join('\n');
  return `---\n${yaml}\n---\n\n${body}`;
}
