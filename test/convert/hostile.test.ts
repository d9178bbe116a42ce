// Hostile and broken inputs: each must end in a ConversionError with a clear message (or, where
// a parser can recover, in Markdown), never in another exception or a runaway allocation.
import { describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { readZipParts } from '../../src/convert/zip-parts.js';
import { inspectZip } from '../../src/convert/zip.js';
import { ConversionError } from '../../src/errors.js';
import { buildZip, minimalDocx, minimalPdf, readOwn, rejection } from './support.js';

const MiB = 1024 * 1024;

describe('corrupt and truncated files', () => {
  it.each(['sample.docx', 'sample.xlsx', 'sample.pptx'])('refuses a truncated %s', async (file) => {
    const bytes = readOwn(file);
    const err = await rejection(convertDocument(bytes.subarray(0, bytes.length / 2), file));
    expect(err.message).toMatch(/corrupt or truncated/);
  });

  it('refuses a zip whose entries are garbage', async () => {
    const bytes = buildZip([{ name: 'word/document.xml', data: Buffer.from('<<<not xml at all'), store: true }]);
    const err = await rejection(convertDocument(bytes, 'garbage.docx'));
    expect(err.message).toMatch(/^garbage\.docx could not be read as a Word document: /);
  });

  it('refuses a zip entry whose checksum or data is damaged', async () => {
    const bytes = Buffer.from(readOwn('sample.docx'));
    bytes.fill(0x55, 200, 1200); // inside the first entries' compressed data
    await rejection(convertDocument(bytes, 'damaged.docx'));
  });

  it('refuses a PDF with no usable structure', async () => {
    const err = await rejection(convertDocument(Buffer.from('%PDF-1.7\n%%EOF\n'), 'hollow.pdf'));
    expect(err.message).toMatch(/hollow\.pdf/);
  });

  it('still reads the intact part of a truncated PDF, or refuses it', async () => {
    const bytes = readOwn('sample.pdf');
    const outcome = await convertDocument(bytes.subarray(0, Math.floor(bytes.length * 0.6)), 'cut.pdf').then(
      (markdown) => markdown,
      (err: unknown) => err,
    );
    if (typeof outcome === 'string') expect(outcome.length).toBeGreaterThan(0);
    else expect(outcome).toBeInstanceOf(ConversionError);
  });

  it('refuses OLE2 files full of garbage', async () => {
    const doc = Buffer.from(readOwn('sample.doc'));
    doc.fill(0xab, 512);
    await rejection(convertDocument(doc, 'garbage.doc', { soffice: false }));
    const xls = Buffer.from(readOwn('sample.xls'));
    xls.fill(0xab, 512);
    await rejection(convertDocument(xls, 'garbage.xls'));
  });

  it('treats a document without text as a failure, not an empty success', async () => {
    const err = await rejection(convertDocument(minimalDocx([]), 'blank.docx'));
    expect(err.message).toBe('blank.docx contains no text that could be extracted.');
  });

  it('treats a text-less PDF as a scan: a success that says so', async () => {
    const markdown = await convertDocument(minimalPdf([null, null]), 'scan.pdf');
    expect(markdown).toMatch(/^> \*\*No text could be extracted from this PDF\.\*\* Its 2 pages have no text layer/);
  });

  it('marks the text-less pages of a PDF that has text elsewhere', async () => {
    const markdown = await convertDocument(minimalPdf([['Cover letter'], null]), 'mixed.pdf');
    expect(markdown).toMatch(/^Cover letter\n\n<!-- Page 2 -->\n\n\*\(No text on this page/);
  });

  it('keeps a hostile file name out of the message', async () => {
    const err = await rejection(convertDocument(Buffer.from('nope'), '../../etc/\u0007evil\nname.docx'));
    expect(err.message).toMatch(/^evil\s?name\.docx is not a PDF/);
  });
});

describe('zip bombs', () => {
  it('refuses a zip whose central directory declares more than the size cap', async () => {
    // 201 MiB of zeros deflates to about 200 KiB.
    const bomb = minimalDocx(['tiny'], [{ name: 'word/media/zeros.bin', data: Buffer.alloc(201 * MiB) }]);
    expect(bomb.length).toBeLessThan(1 * MiB);
    const err = await rejection(convertDocument(bomb, 'bomb.docx'));
    expect(err.message).toMatch(/bomb\.docx was refused: it would inflate to more than 200 MiB/);
  });

  it('refuses overlapping entries that reuse the same data many times', async () => {
    const zip = buildZip(
      [{ name: 'word/document.xml', data: Buffer.alloc(8 * MiB) }],
      Array.from({ length: 30 }, (_, i) => ({ name: `word/copy${i}.xml`, target: 0 })),
    );
    const err = await rejection(convertDocument(zip, 'overlap.docx'));
    expect(err.message).toMatch(/would inflate to more than/);
  });

  it('refuses an entry that inflates past the size it declares', async () => {
    const liar = minimalDocx(['tiny'], [{ name: 'word/media/liar.bin', data: Buffer.alloc(4 * MiB), declaredSize: 1000 }]);
    await rejection(convertDocument(liar, 'liar.docx'));
  });

  it('reads only the parts asked for, and refuses one that inflates to another size than it declares', async () => {
    const limits = { maxUncompressedBytes: 8 * MiB, maxEntries: 100 };
    const parts = [
      { name: 'ppt/slides/slide1.xml', data: '<p:sld/>' },
      { name: 'ppt/slides/slide2.xml', data: '<p:sld>stored</p:sld>', store: true },
      { name: 'ppt/media/image1.png', data: Buffer.alloc(1000) },
    ];
    const read = readZipParts(buildZip(parts), (name) => name.startsWith('ppt/slides/'), limits, 'deck.pptx');
    expect([...read].map(([name, data]) => [name, data.toString('utf8')])).toEqual([
      ['ppt/slides/slide1.xml', '<p:sld/>'],
      ['ppt/slides/slide2.xml', '<p:sld>stored</p:sld>'],
    ]);
    for (const declaredSize of [1000, 5 * MiB]) {
      const liar = buildZip([{ name: 'ppt/slides/slide1.xml', data: Buffer.alloc(4 * MiB), declaredSize }]);
      expect(() => readZipParts(liar, () => true, limits, 'liar.pptx')).toThrow(
        /^liar\.pptx has a corrupt zip entry \(ppt\/slides\/slide1\.xml\)/,
      );
    }
  });

  it('reads parts under the same caps as inspectZip, and refuses a broken directory', () => {
    const parts = [
      { name: 'ppt/slides/slide1.xml', data: Buffer.alloc(3 * MiB) },
      { name: 'ppt/slides/slide2.xml', data: '<p:sld/>' },
    ];
    const read = (bytes: Buffer, limits: { maxUncompressedBytes: number; maxEntries: number }) =>
      readZipParts(bytes, () => true, limits, 'deck.pptx');
    expect(() => read(buildZip(parts), { maxUncompressedBytes: 2 * MiB, maxEntries: 100 })).toThrow(/would inflate to more than 2 MiB/);
    expect(() => read(buildZip(parts), { maxUncompressedBytes: 8 * MiB, maxEntries: 1 })).toThrow(/has 2 entries, more than the limit of 1/);
    const bytes = buildZip(parts);
    expect(() => read(bytes.subarray(0, bytes.length - 30), { maxUncompressedBytes: 8 * MiB, maxEntries: 100 })).toThrow(
      /^deck\.pptx has a corrupt zip directory: /,
    );
  });

  it('enforces a configured size cap on the real inflated size', async () => {
    const zip = minimalDocx(['tiny'], [{ name: 'word/media/big.bin', data: Buffer.alloc(3 * MiB) }]);
    await expect(inspectZip(zip, { maxUncompressedBytes: 2 * MiB, maxEntries: 100 }, 'big.docx')).rejects.toThrow(
      /more than 2 MiB/,
    );
    await expect(inspectZip(zip, { maxUncompressedBytes: 4 * MiB, maxEntries: 100 }, 'big.docx')).resolves.toContain(
      'word/media/big.bin',
    );
  });

  it('refuses a zip with more entries than the cap', async () => {
    const many = minimalDocx(
      ['tiny'],
      Array.from({ length: 10_001 }, (_, i) => ({ name: `word/parts/${i}.xml`, data: '', store: true })),
    );
    const err = await rejection(convertDocument(many, 'many.docx'));
    expect(err.message).toMatch(/has 10004 entries, more than the limit of 10000/);
    await expect(convertDocument(minimalDocx(['ok']), 'few.docx', { maxZipEntries: 2 })).rejects.toThrow(
      /more than the limit of 2/,
    );
  });
});
