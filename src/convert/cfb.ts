// Reads the names of the top-level streams of an OLE2 compound file (the container of legacy
// .doc, .xls and .ppt files, and of password-protected OOXML), enough to tell them apart. Only
// the header, the FAT and the directory are read; every offset is bounds-checked and every chain
// walk is capped, since the input is hostile. Returns null when the structure does not hold up.

export const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const END_OF_CHAIN = 0xfffffffe;
const NO_STREAM = 0xffffffff;
const MAX_SECTORS_WALKED = 1 << 20;
const DIR_ENTRY_SIZE = 128;

class Cfb {
  readonly sectorSize: number;
  private readonly bytes: Buffer;
  private readonly fatSectors: number[] = [];

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    const shift = bytes.readUInt16LE(0x1e);
    if (shift !== 9 && shift !== 12) throw new RangeError('bad sector shift');
    this.sectorSize = 1 << shift;
    this.readFatSectorList();
  }

  private sectorOffset(sector: number): number {
    const offset = (sector + 1) * this.sectorSize;
    if (offset + this.sectorSize > this.bytes.length) throw new RangeError('sector out of range');
    return offset;
  }

  private u32(offset: number): number {
    if (offset < 0 || offset + 4 > this.bytes.length) throw new RangeError('read out of range');
    return this.bytes.readUInt32LE(offset);
  }

  /** The FAT's own sectors: 109 listed in the header, the rest in the DIFAT chain. */
  private readFatSectorList(): void {
    const fatCount = this.u32(0x2c);
    const perSector = this.sectorSize / 4;
    if (fatCount > MAX_SECTORS_WALKED) throw new RangeError('FAT too large');
    for (let i = 0; i < 109 && this.fatSectors.length < fatCount; i++) {
      this.fatSectors.push(this.u32(0x4c + i * 4));
    }
    let difat = this.u32(0x44);
    const seen = new Set<number>();
    while (this.fatSectors.length < fatCount && difat !== END_OF_CHAIN && difat !== NO_STREAM) {
      if (seen.has(difat) || seen.size > MAX_SECTORS_WALKED) throw new RangeError('DIFAT loop');
      seen.add(difat);
      const base = this.sectorOffset(difat);
      for (let i = 0; i < perSector - 1 && this.fatSectors.length < fatCount; i++) {
        this.fatSectors.push(this.u32(base + i * 4));
      }
      difat = this.u32(base + (perSector - 1) * 4);
    }
  }

  private next(sector: number): number {
    const perSector = this.sectorSize / 4;
    const fatSector = this.fatSectors[Math.floor(sector / perSector)];
    if (fatSector === undefined) throw new RangeError('sector beyond FAT');
    return this.u32(this.sectorOffset(fatSector) + (sector % perSector) * 4);
  }

  /** Byte offsets of every directory entry, following the directory's sector chain. */
  directoryOffsets(): number[] {
    const offsets: number[] = [];
    const seen = new Set<number>();
    let sector = this.u32(0x30);
    while (sector !== END_OF_CHAIN) {
      if (seen.has(sector) || seen.size > MAX_SECTORS_WALKED) throw new RangeError('directory loop');
      seen.add(sector);
      const base = this.sectorOffset(sector);
      for (let i = 0; i < this.sectorSize / DIR_ENTRY_SIZE; i++) offsets.push(base + i * DIR_ENTRY_SIZE);
      sector = this.next(sector);
    }
    return offsets;
  }

  entryName(offset: number): string {
    const length = Math.min(this.bytes.readUInt16LE(offset + 0x40), 64);
    // The length counts the terminating NUL (two bytes).
    return this.bytes.toString('utf16le', offset, offset + Math.max(0, length - 2));
  }
}

/** Names of the streams and storages directly under the root, or null if unreadable. */
export function rootEntryNames(bytes: Buffer): string[] | null {
  if (bytes.length < 512 || !bytes.subarray(0, 8).equals(OLE2_MAGIC)) return null;
  try {
    const cfb = new Cfb(bytes);
    const dir = cfb.directoryOffsets();
    const root = dir[0];
    if (root === undefined) return null;
    const names: string[] = [];
    // The root's children form a red-black tree linked by left/right sibling ids.
    const pending = [bytes.readUInt32LE(root + 0x4c)];
    const seen = new Set<number>();
    while (pending.length > 0) {
      const id = pending.pop();
      if (id === undefined || id === NO_STREAM || seen.has(id)) continue;
      const offset = dir[id];
      if (offset === undefined || seen.size > dir.length) return null;
      seen.add(id);
      names.push(cfb.entryName(offset));
      pending.push(bytes.readUInt32LE(offset + 0x44), bytes.readUInt32LE(offset + 0x48));
    }
    return names;
  } catch {
    // A damaged directory reads past the buffer: the file is not a readable OLE2 container.
    return null;
  }
}
