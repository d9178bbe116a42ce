// The project's own small fixtures (test/fixtures/documents, made by src/make-fixtures.ts), so
// a plain clone can test every format. The LibreOffice paths need soffice on PATH; the
// word-extractor fallback for .doc is tested regardless.
import { describe, expect, it } from 'vitest';
import { CONVERTIBLE_EXTENSIONS, convertDocument } from '../../src/convert/convert.js';
import { ConversionError } from '../../src/errors.js';
import { HAS_SOFFICE, readOwn } from './support.js';

const WORD_MARKER = '5f2c8e71-warren-docx';
const SLIDES_MARKER = '9d41b6e0-warren-ppt';

function expectWordStructure(markdown: string): void {
  expect(markdown).toMatch(/^# Warren Fixture Report$/m);
  expect(markdown).toMatch(/^## Quarterly Figures$/m);
  expect(markdown).toContain(WORD_MARKER);
  expect(markdown).toMatch(/^\| Region \| Q1 +\| Q2 +\|$/m);
  expect(markdown).toMatch(/^\| --- \| --- \| --- \|$/m);
  expect(markdown).toMatch(/^\| South \\\| East \| 98 +\| 101 +\|$/m);
  expect(markdown).toMatch(/^- Review the budget$/m);
  expect(markdown).toMatch(/^2\. Second numbered step$/m);
  expect(markdown).toContain('zephyrine');
}

function expectSlides(markdown: string): void {
  expect(markdown.match(/^## Slide \d$/gm)).toEqual(['## Slide 1', '## Slide 2']);
  expect(markdown).toMatch(/^### Warren Deck Title$/m);
  expect(markdown).toMatch(/^### Second Slide Heading$/m);
  expect(markdown).toMatch(/^- First bullet about otters\n- Marker 9d41b6e0-warren-ppt$/m);
  expect(markdown).toMatch(/^### Notes\n\nSpeaker note: mention the quokka\.$/m);
}

describe('own fixtures', () => {
  it('lists the convertible extensions', () => {
    expect([...CONVERTIBLE_EXTENSIONS].sort()).toEqual(['.doc', '.docx', '.pdf', '.ppt', '.pptx', '.xls', '.xlsx']);
  });

  it('converts a .docx with headings, a pipe table and lists', async () => {
    expectWordStructure(await convertDocument(readOwn('sample.docx'), 'sample.docx'));
  });

  it('converts an .xlsx and an .xls: a heading and a pipe table per sheet, pipes escaped', async () => {
    for (const file of ['sample.xlsx', 'sample.xls']) {
      const markdown = await convertDocument(readOwn(file), file);
      expect(markdown.match(/^## .+$/gm)).toEqual(['## Budget 2025', '## Notes', '## Empty']);
      expect(markdown).toMatch(/^\| Item \| Owner \| Amount \|\n\| --- \| --- \| --- \|$/m);
      expect(markdown).toContain('| Laptops | IT \\| Ops | 12500 |');
      expect(markdown).toContain('| Line one<br>line two |');
      expect(markdown).toContain('c41d2a9e-warren-xlsx');
      expect(markdown).toMatch(/^## Empty\n\n\*\(empty sheet\)\*$/m);
    }
  });

  it('converts a .pptx: slide headings, titles, bullets and speaker notes', async () => {
    expectSlides(await convertDocument(readOwn('sample.pptx'), 'sample.pptx'));
  });

  it('converts a PDF made by LibreOffice', async () => {
    const markdown = await convertDocument(readOwn('sample.pdf'), 'sample.pdf');
    expect(markdown).toContain('Warren Fixture Report');
    expect(markdown).toContain(WORD_MARKER);
    expect(markdown).toContain('South | East 98 101');
  });

  it('converts a .doc without LibreOffice as plain text (word-extractor), and says so', async () => {
    const markdown = await convertDocument(readOwn('sample.doc'), 'sample.doc', { soffice: false });
    expect(markdown).toMatch(/^> Converted as plain text because LibreOffice is not available/);
    expect(markdown).toContain('Warren Fixture Report');
    expect(markdown).toContain(WORD_MARKER);
    expect(markdown).toContain('Second numbered step');
  });

  it('refuses a .ppt without LibreOffice, saying why', async () => {
    const attempt = convertDocument(readOwn('sample.ppt'), 'sample.ppt', { soffice: false });
    await expect(attempt).rejects.toBeInstanceOf(ConversionError);
    await expect(attempt).rejects.toThrow(/sample\.ppt was not converted: .*LibreOffice.*not installed/);
  });

  describe.runIf(HAS_SOFFICE)('with LibreOffice', () => {
    it('converts a .doc through LibreOffice, keeping headings, table and lists', async () => {
      expectWordStructure(await convertDocument(readOwn('sample.doc'), 'sample.doc'));
    });

    it('converts a .ppt through LibreOffice, keeping slides, titles and notes', async () => {
      const markdown = await convertDocument(readOwn('sample.ppt'), 'sample.ppt');
      expectSlides(markdown);
      expect(markdown).toContain(SLIDES_MARKER);
    });

    it('reports a LibreOffice failure on a corrupt .doc as a ConversionError', async () => {
      const bytes = Buffer.from(readOwn('sample.doc'));
      bytes.fill(0x41, 512);
      await expect(convertDocument(bytes, 'broken.doc')).rejects.toBeInstanceOf(ConversionError);
    });
  });
});
