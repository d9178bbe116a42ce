// Test helpers for the converters: fixture paths, and builders for zips and PDFs made on the
// fly (zip bombs, polyglots, scans), so the hostile inputs need no binary files in the repo.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { expect } from 'vitest';
import { onPath } from '../../src/convert/child-process.js';
import { findSoffice } from '../../src/convert/soffice.js';
import { ConversionError } from '../../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shared real-world fixtures (markitdown's test files), outside the project. */
export const SHARED_FIXTURES = path.resolve(root, '../shared/fixtures/documents/markitdown');

/**
 * The shared fixtures are extra coverage: their suites run when ../shared is beside the project,
 * and always in CI, which has it (.ci/run checks), so there a missing copy fails loudly.
 */
export const WITH_SHARED_FIXTURES = existsSync(SHARED_FIXTURES) || process.env.CI === 'true';

/** The project's own small fixtures. */
export const OWN_FIXTURES = path.resolve(root, 'test/fixtures/documents');

export function readShared(name: string): Buffer {
  const file = path.join(SHARED_FIXTURES, name);
  if (!existsSync(file)) {
    throw new Error(`Shared fixture missing: ${file}. The document fixtures must be present at ../shared/fixtures.`);
  }
  return readFileSync(file);
}

export function readOwn(name: string): Buffer {
  return readFileSync(path.join(OWN_FIXTURES, name));
}

/** True when Tesseract is on PATH (CI installs it; the OCR tests need it). */
export const HAS_TESSERACT = onPath(['tesseract']) !== null;

/** True when LibreOffice is on PATH (CI installs it; the .doc/.ppt LibreOffice tests need it). */
export const HAS_SOFFICE = findSoffice() !== null;

export interface ZipEntrySpec {
  name: string;
  data: Buffer | string;
  /** Store instead of deflate. */
  store?: boolean;
  /** Lie in the headers about the uncompressed size. */
  declaredSize?: number;
}

interface Written {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  declaredSize: number;
  offset: number;
}

/**
 * Builds a zip archive. `aliases` adds extra central-directory records that point at an
 * already written entry's data (the overlapping-entries zip bomb).
 */
export function buildZip(entries: readonly ZipEntrySpec[], aliases: readonly { name: string; target: number }[] = []): Buffer {
  const chunks: Buffer[] = [];
  const written: Written[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
    const body = entry.store ? data : deflateRawSync(data);
    const name = Buffer.from(entry.name, 'utf8');
    const record: Written = {
      name,
      method: entry.store ? 0 : 8,
      crc: crc32(data),
      compressedSize: body.length,
      declaredSize: entry.declaredSize ?? data.length,
      offset,
    };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(record.method, 8);
    header.writeUInt16LE(0x21, 12); // 1980-01-01
    header.writeUInt32LE(record.crc, 14);
    header.writeUInt32LE(record.compressedSize, 18);
    header.writeUInt32LE(record.declaredSize, 22);
    header.writeUInt16LE(name.length, 26);
    chunks.push(header, name, body);
    offset += header.length + name.length + body.length;
    written.push(record);
  }
  for (const alias of aliases) {
    const target = written[alias.target];
    if (!target) throw new Error(`no entry ${alias.target} to alias`);
    written.push({ ...target, name: Buffer.from(alias.name, 'utf8') });
  }
  const centralStart = offset;
  for (const record of written) {
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(record.method, 10);
    header.writeUInt16LE(0x21, 14);
    header.writeUInt32LE(record.crc, 16);
    header.writeUInt32LE(record.compressedSize, 20);
    header.writeUInt32LE(record.declaredSize, 24);
    header.writeUInt16LE(record.name.length, 28);
    header.writeUInt32LE(record.offset, 42);
    chunks.push(header, record.name);
    offset += header.length + record.name.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(written.length, 8);
  end.writeUInt16LE(written.length, 10);
  end.writeUInt32LE(offset - centralStart, 12);
  end.writeUInt32LE(centralStart, 16);
  chunks.push(end);
  return Buffer.concat(chunks);
}

/** The smallest .docx mammoth accepts, with one paragraph per string, plus any extra entries. */
export function minimalDocx(paragraphs: readonly string[], extra: readonly ZipEntrySpec[] = []): Buffer {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  return buildZip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    {
      name: 'word/document.xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        `<w:body>${body}</w:body></w:document>`,
    },
    ...extra,
  ]);
}

/**
 * A PDF with one page per entry: the strings are drawn as text lines in Helvetica, or, for
 * null, the page holds only a filled rectangle (no text layer, like a scan).
 */
export function minimalPdf(pages: readonly (readonly string[] | null)[]): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then per page a page object and its content stream.
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  let next = 4;
  for (const lines of pages) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    const content = lines
      ? `BT /F1 12 Tf 14 TL 72 720 Td ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`
      : '0.2 0.2 0.2 rg 72 72 468 648 re f';
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contentId} 0 R ` +
      '/Resources << /Font << /F1 3 0 R >> >> >>';
    objects[contentId] = `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;
  }
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(pdf, 'latin1');
    pdf += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) pdf += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/**
 * A workbook of about 240,000 cells: well within the default limits, far beyond a 32 MB heap,
 * and seconds of parsing, so it outlasts any short time limit.
 */
export function bigWorkbook(): Buffer {
  const rows = Array.from({ length: 40_000 }, (_, r) => Array.from({ length: 6 }, (_, c) => `cell ${r}-${c} text`));
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows), 'Big');
  const written: unknown = XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true });
  if (!Buffer.isBuffer(written)) throw new Error('XLSX.write did not return a Buffer');
  return written;
}

/** Polls `check` for up to about 5 s; true as soon as it holds. A liveness check, not a timing one. */
export async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** The ConversionError a conversion rejects with; fails the test if it resolves or throws anything else. */
export async function rejection(attempt: Promise<unknown>): Promise<ConversionError> {
  const outcome = await attempt.then(
    () => new Error('expected the conversion to fail'),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(ConversionError);
  return outcome as ConversionError;
}
