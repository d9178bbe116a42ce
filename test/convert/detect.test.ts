// Type detection works from the bytes: the extension only breaks ties. Mismatched names,
// polyglots and unsupported containers are handled by what the file really is.
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { rootEntryNames } from '../../src/convert/cfb.js';
import { convertDocument } from '../../src/convert/convert.js';
import { detectDocument, kindFromExtension } from '../../src/convert/detect.js';
import type { DocumentKind } from '../../src/convert/detect.js';
import { zipLimits } from '../../src/convert/options.js';
import { ConversionError } from '../../src/errors.js';
import { buildZip, minimalDocx, minimalPdf, readOwn } from './support.js';

function detect(bytes: Buffer, filename: string): Promise<DocumentKind> {
  return detectDocument(bytes, filename, zipLimits({}), filename);
}

/** An OLE2 compound file holding the given top-level streams. */
function ole2(streams: readonly string[]): Buffer {
  const cfb = XLSX.CFB.utils.cfb_new();
  for (const name of streams) XLSX.CFB.utils.cfb_add(cfb, `/${name}`, Buffer.from('payload'));
  const written: unknown = XLSX.CFB.write(cfb, { type: 'buffer' });
  if (!Buffer.isBuffer(written)) throw new Error('CFB.write did not return a Buffer');
  return written;
}

describe('detectDocument', () => {
  it.each([
    ['sample.docx', 'docx'],
    ['sample.xlsx', 'xlsx'],
    ['sample.pptx', 'pptx'],
    ['sample.pdf', 'pdf'],
    ['sample.doc', 'doc'],
    ['sample.xls', 'xls'],
    ['sample.ppt', 'ppt'],
  ] as const)('detects %s as %s', async (file, kind) => {
    expect(await detect(readOwn(file), file)).toBe(kind);
  });

  it('ignores a wrong extension', async () => {
    expect(await detect(readOwn('sample.pdf'), 'report.docx')).toBe('pdf');
    expect(await detect(readOwn('sample.xlsx'), 'report.pptx')).toBe('xlsx');
    expect(await detect(readOwn('sample.ppt'), 'slides.doc')).toBe('ppt');
    expect(await detect(readOwn('sample.doc'), 'no-extension')).toBe('doc');
  });

  it('tells legacy files apart by stream names, not extension', async () => {
    expect(rootEntryNames(readOwn('sample.doc'))).toContain('WordDocument');
    expect(rootEntryNames(readOwn('sample.ppt'))).toContain('PowerPoint Document');
    expect(await detect(ole2(['Workbook']), 'misnamed.doc')).toBe('xls');
    expect(await detect(ole2(['Book']), 'old.bin')).toBe('xls');
    expect(await detect(ole2(['WordDocument', '1Table']), 'misnamed.ppt')).toBe('doc');
  });

  it('falls back to the extension when an OLE2 directory is unreadable', async () => {
    const damaged = Buffer.from(readOwn('sample.xls'));
    damaged.writeUInt32LE(0xfffffff0, 0x30); // directory start sector out of range
    expect(rootEntryNames(damaged)).toBeNull();
    expect(await detect(damaged, 'damaged.xls')).toBe('xls');
    await expect(detect(damaged, 'damaged.bin')).rejects.toBeInstanceOf(ConversionError);
  });

  it('refuses password-protected Office files and other OLE2 files', async () => {
    await expect(detect(ole2(['EncryptionInfo', 'EncryptedPackage']), 'secret.docx')).rejects.toThrow(
      /password-protected/,
    );
    await expect(detect(ole2(['__substg1.0_0037001F']), 'mail.msg')).rejects.toThrow(/not a Word, Excel/);
  });

  it('refuses files that are not documents', async () => {
    await expect(detect(Buffer.alloc(0), 'empty.pdf')).rejects.toThrow(/empty/);
    await expect(detect(Buffer.from('just some text'), 'notes.docx')).rejects.toThrow(/not a PDF or an Office/);
    await expect(detect(Buffer.from('{\\rtf1\\ansi hello}'), 'letter.doc')).rejects.toThrow(/RTF/);
    const odt = buildZip([{ name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true }]);
    await expect(detect(odt, 'letter.odt')).rejects.toThrow(/OpenDocument/);
    const plainZip = buildZip([{ name: 'readme.txt', data: 'hello' }]);
    await expect(detect(plainZip, 'archive.docx')).rejects.toThrow(/zip archive, not a Word/);
  });

  it('maps extensions, including macro-enabled variants', () => {
    expect(kindFromExtension('a.DOCX')).toBe('docx');
    expect(kindFromExtension('a.xlsm')).toBe('xlsx');
    expect(kindFromExtension('a.pptm')).toBe('pptx');
    expect(kindFromExtension('a.txt')).toBeNull();
    expect(kindFromExtension('pdf')).toBeNull();
  });
});

describe('converting by the real type', () => {
  it('converts a PDF named .docx as a PDF', async () => {
    const markdown = await convertDocument(readOwn('sample.pdf'), 'report.docx');
    expect(markdown).toContain('5f2c8e71-warren-docx');
  });

  it('converts a workbook named .pptx as a workbook', async () => {
    const markdown = await convertDocument(readOwn('sample.xlsx'), 'slides.pptx');
    expect(markdown).toMatch(/^## Budget 2025$/m);
  });

  it('converts a PDF+zip polyglot by its leading magic (PDF), never the appended zip', async () => {
    const polyglot = Buffer.concat([minimalPdf([['polyglot pdf side']]), minimalDocx(['polyglot docx side'])]);
    expect(await detect(polyglot, 'both.docx')).toBe('pdf');
    const markdown = await convertDocument(polyglot, 'both.docx');
    expect(markdown).toContain('polyglot pdf side');
    expect(markdown).not.toContain('polyglot docx side');
  });

  it('converts a zip holding a PDF header by the zip (the container comes first)', async () => {
    const docx = minimalDocx(['zip side wins'], [{ name: 'word/media/x.pdf', data: '%PDF-1.4 fake', store: true }]);
    expect(docx.subarray(0, 1024).includes('%PDF-')).toBe(true);
    expect(await convertDocument(docx, 'file.pdf')).toContain('zip side wins');
  });

  it('uses the extension to break a tie in an ambiguous OOXML zip', async () => {
    const both = minimalDocx(['word side'], [{ name: 'xl/workbook.xml', data: '<workbook/>' }]);
    expect(await detect(both, 'a.docx')).toBe('docx');
    expect(await detect(both, 'a.xlsx')).toBe('xlsx');
    expect(await detect(both, 'a.bin')).toBe('docx');
  });
});
