// A minimal zip writer for tests. It writes exactly what it is told, including what a careful
// archiver never would (absolute names, `..`, symlinks, lying sizes), so the installer's
// refusals can be tested.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  name: string;
  data?: string | Buffer;
  /** Unix mode for the external attributes; 0o120777 makes a symlink. */
  mode?: number;
  /** Overrides the uncompressed size written in both headers. */
  declaredSize?: number;
  encrypted?: boolean;
  store?: boolean;
}

export function buildZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '');
    const isDir = e.name.endsWith('/');
    const method = e.store || isDir ? 0 : 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const size = e.declaredSize ?? data.length;
    const flags = 0x0800 | (e.encrypted ? 0x1 : 0);
    const crc = crc32(data);
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
