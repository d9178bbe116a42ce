// PDF structure from documents we build with known layout (test/fixtures/documents/src/pdf-builder.ts):
// headings with levels, joined paragraphs, lists, borderless tables, running headers and page
// numbers; OCR of a scanned page the test renders; and workbooks with no values.
import * as XLSX from '@e965/xlsx';
import { afterAll, describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import { buildPdf, reportPdf } from '../fixtures/documents/src/pdf-builder.js';
import { SCAN_HEIGHT, SCAN_WIDTH, scannedJpeg, scannedPdf } from '../fixtures/documents/src/scan.js';
import { HAS_TESSERACT } from './support.js';

const SCAN_LINES = ['Harbour inspection notes', 'Berth seven needs new fenders', 'Signed by the harbour master'];

describe('PDF structure from text positions', () => {
  it('turns font size and weight into heading levels', async () => {
    const markdown = await convertDocument(reportPdf(3), 'report.pdf');
    expect(markdown).toMatch(/^# Quarterly Harbour Report$/m);
    expect(markdown.match(/^## \d Harbour Traffic in Zone \d$/gm)).toEqual([
      '## 1 Harbour Traffic in Zone 1',
      '## 2 Harbour Traffic in Zone 2',
      '## 3 Harbour Traffic in Zone 3',
    ]);
  });

  it('joins a paragraph\'s lines and undoes hyphenation at a line end', async () => {
    const markdown = await convertDocument(reportPdf(1), 'report.pdf');
    expect(markdown).toContain('and the new pier took most of the growth. Berths were booked');
    expect(markdown).toContain('room to accommodation for two more pilot crews');
    expect(markdown).toMatch(/^The harbour handled .* night arrivals wait less\.$/m);
  });

  it('makes bullets a list and a borderless table a pipe table, cells in their rows', async () => {
    const markdown = await convertDocument(reportPdf(2), 'report.pdf');
    expect(markdown).toContain(
      '- Pilots on call around the clock (zone 2)\n- Two new tugs in service (zone 2)\n- Dredging finished in the east channel (zone 2)',
    );
    expect(markdown).toContain('| Pier | Ships | Delays | State |\n| --- | --- | --- | --- |\n| Pier 1 | 43 | 11 | Open |\n| Pier 2 | 44 | 12 | Closed |');
  });

  it('drops page numbers and repeats of the running header, and marks page breaks', async () => {
    const markdown = await convertDocument(reportPdf(3), 'report.pdf');
    expect(markdown).not.toMatch(/Page \d of 3/);
    expect(markdown.match(/Harbour Authority - Quarterly Report/g)).toHaveLength(1);
    expect(markdown.match(/^<!-- Page \d -->$/gm)).toEqual(['<!-- Page 2 -->', '<!-- Page 3 -->']);
  });

  it('leaves text that cannot be read as Markdown unescaped', async () => {
    const pdf = buildPdf([
      {
        texts: [
          { text: 'Totals', x: 72, y: 100, size: 10 },
          { text: '==========', x: 72, y: 130, size: 10 },
          { text: 'Cost = 5 + 3', x: 72, y: 160, size: 10 },
          { text: '# not a heading', x: 72, y: 190, size: 10 },
        ],
      },
    ]);
    const markdown = await convertDocument(pdf, 'rules.pdf');
    expect(markdown).toContain('\n==========\n');
    expect(markdown).toContain('Cost = 5 + 3');
    expect(markdown).toContain('\\# not a heading');
  });
});

describe.runIf(HAS_TESSERACT)('OCR of scanned pages (Tesseract)', () => {
  const sandbox = createSandbox({ maxWorkers: 1 });
  afterAll(() => sandbox.close());

  it('reads a scanned page the test renders, and says the text came from OCR', async () => {
    const markdown = await convertDocument(scannedPdf(SCAN_LINES), 'scan.pdf', { ocr: { languages: ['eng'] } });
    expect(markdown).toMatch(/^> \*\*The text of page 1 was recognised by OCR\*\* \(Tesseract, eng\)/);
    for (const line of SCAN_LINES) expect(markdown).toContain(line);
  });

  it('runs in the conversion sandbox with the same options', async () => {
    const markdown = await sandbox.convert(scannedPdf(SCAN_LINES), 'scan.pdf', { ocr: { languages: ['eng'] }, timeoutMs: 120_000 });
    expect(markdown).toContain('recognised by OCR');
    expect(markdown).toContain('Berth seven needs new fenders');
  });

  it('reads a large image on a page that also has text, after that page\'s text', async () => {
    const image = { data: scannedJpeg(['Chart legend: tide gauge readings']), width: SCAN_WIDTH, height: SCAN_HEIGHT };
    const pdf = buildPdf([{ image, texts: [{ text: 'Figure 3 shows the gauges.', x: 72, y: 700, size: 10 }] }]);
    const markdown = await convertDocument(pdf, 'figure.pdf', { ocr: {} });
    expect(markdown).toContain('Figure 3 shows the gauges.\n\n*Text in an image on this page, recognised by OCR:*');
    expect(markdown).toContain('Chart legend: tide gauge readings');
  });

  it('names the pages left out past the page cap', async () => {
    const twoPages = scannedPdf(['Only the first page is read'], ['The second page is not']);
    const markdown = await convertDocument(twoPages, 'scan.pdf', { ocr: { maxPages: 1 } });
    expect(markdown).toContain('page 2 was not read by OCR: OCR reads at most 1 pages or images per document.');
    expect(markdown).toContain('Only the first page is read');
  });
});

describe('scanned pages without OCR', () => {
  it('keeps the clear note when OCR is off', async () => {
    const markdown = await convertDocument(scannedPdf(SCAN_LINES), 'scan.pdf', { ocr: false });
    expect(markdown).toMatch(/No text could be extracted from this PDF.*OCR is not configured/);
  });

  it('keeps the clear note when Tesseract is not installed', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const markdown = await convertDocument(scannedPdf(SCAN_LINES), 'scan.pdf', { ocr: {} });
      expect(markdown).toMatch(/No text could be extracted from this PDF.*OCR is not configured/);
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('workbooks with no values', () => {
  it('give one heading per sheet and say they are empty', async () => {
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([]), 'Budget 1995');
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([]), 'Notes');
    for (const bookType of ['xlsx', 'biff8'] as const) {
      const bytes = Buffer.from(XLSX.write(workbook, { type: 'buffer', bookType }) as Uint8Array);
      const markdown = await convertDocument(bytes, bookType === 'xlsx' ? 'empty.xlsx' : 'empty.xls');
      expect(markdown).toMatch(/^> This workbook has no cell values/);
      expect(markdown.match(/^## .*$/gm)).toEqual(['## Budget 1995', '## Notes']);
      expect(markdown.match(/\*\(empty sheet\)\*/g)).toHaveLength(2);
    }
  });
});
