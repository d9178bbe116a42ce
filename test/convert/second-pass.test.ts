// Conversion, second pass (#36): printed-page PDFs (print headers and footers, ragged lines drawn
// with a font object each), PDF outlines and font-size clustering, a workbook with a merged
// title, a deck with a numbered list and LibreOffice's `<number>` field, and a Word document with
// split runs, an internal link and a nested table. Assertions are on the Markdown's structure.
import * as XLSX from '@e965/xlsx';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { buildPdf } from '../fixtures/documents/src/pdf-builder.js';
import type { PdfText } from '../fixtures/documents/src/pdf-builder.js';
import { SCAN_HEIGHT, SCAN_WIDTH, scannedJpeg } from '../fixtures/documents/src/scan.js';
import { HAS_TESSERACT, readOwn } from './support.js';

const PROSE = [
  'Otters need a pool deep enough to dive in and a dry den',
  'where they can rest between meals. Keepers check the water',
  'every morning, and change it when it turns cloudy or',
  'smells of fish, which happens more often in summer.',
];

/** A page printed from a browser: date and title at the top, URL and page counter at the bottom. */
function printedPage(page: number, pages: number, body: PdfText[]): PdfText[] {
  return [
    { text: '11/27/26, 4:17 AM', x: 20, y: 22, size: 8 },
    { text: 'Otter Care - Zoo Wiki', x: 250, y: 22, size: 8 },
    ...body,
    { text: 'https://zoo.example.org/wiki/otter-care.html', x: 20, y: 778, size: 8 },
    { text: `${page}/${pages}`, x: 570, y: 778, size: 8 },
  ];
}

/** Ragged-right prose, each line with its own font object and line spacing a few percent apart. */
function raggedParagraph(lines: readonly string[], top: number): PdfText[] {
  let y = top;
  return lines.map((text, i) => {
    const line = { text, x: 72, y, size: 11, ownFont: true };
    y += i % 2 === 0 ? 14.2 : 13.6;
    return line;
  });
}

describe('printed-page PDFs', () => {
  it('drops the print header and footer, keeps a running title once, and joins ragged lines', async () => {
    const pdf = buildPdf([
      {
        texts: printedPage(1, 2, [
          { text: 'Otter Care', x: 72, y: 90, size: 18, bold: true },
          ...raggedParagraph(PROSE, 130),
          { text: '1. Rinse the pool', x: 72, y: 220, size: 11 },
          { text: '2. Refill it', x: 72, y: 234, size: 11 },
        ]),
      },
      { texts: printedPage(2, 2, raggedParagraph(['The den is cleaned on Mondays, and the straw', 'is replaced every second week.'], 90)) },
    ]);
    const markdown = await convertDocument(pdf, 'printed.pdf');
    expect(markdown).not.toMatch(/11\/27\/26|4:17 AM|https:|zoo\.example|\b[12]\/2\b/);
    expect(markdown.match(/Otter Care - Zoo Wiki/g)).toHaveLength(1);
    expect(markdown).toMatch(/^# Otter Care$/m);
    expect(markdown).toContain(`\n\n${PROSE.join(' ')}\n\n`);
    expect(markdown).toMatch(/^1\. Rinse the pool\n2\. Refill it$/m);
    expect(markdown).toContain('<!-- Page 2 -->\n\nThe den is cleaned on Mondays, and the straw is replaced every second week.');
  });

  it('drops "1 of 1" and the file name from a one-page print', async () => {
    const texts = [
      { text: 'otter-care.pdf', x: 20, y: 22, size: 8 },
      { text: 'Feeding times are posted at the gate.', x: 72, y: 100, size: 11 },
      { text: '1 of 1', x: 560, y: 778, size: 8 },
    ];
    expect(await convertDocument(buildPdf([{ texts }]), 'one.pdf')).toBe('Feeding times are posted at the gate.\n');
  });
});

describe('PDF heading levels', () => {
  const heading = (text: string, y: number, size: number): PdfText => ({ text, x: 72, y, size, bold: true });
  const body = (text: string, y: number): PdfText => ({ text, x: 72, y, size: 10 });
  const texts = [
    heading('Harbour Guide', 80, 20),
    heading('Introduction', 130, 14),
    body('The harbour has three piers.', 150),
    heading('Scope', 180, 13.5),
    body('This guide covers the north pier.', 200),
    heading('Mooring Rules', 230, 14),
    body('Boats moor bow first.', 250),
    heading('Night Mooring', 280, 13.5),
    body('Lights stay on all night.', 300),
  ];

  it('takes levels and texts from the outline when the PDF has one', async () => {
    const outline = [
      { title: 'Introduction', page: 0, children: [{ title: 'Scope', page: 0 }] },
      { title: 'Mooring Rules', page: 0, children: [{ title: 'Night Mooring', page: 0 }] },
    ];
    const markdown = await convertDocument(buildPdf([{ texts }], outline), 'guide.pdf');
    expect(markdown.match(/^#+ .*$/gm)).toEqual(['# Harbour Guide', '## Introduction', '### Scope', '## Mooring Rules', '### Night Mooring']);
  });

  it('without an outline, clusters font sizes: a size one point smaller is the next level', async () => {
    const sized = texts.map((t) => (t.size === 13.5 ? { ...t, size: 13 } : t));
    const markdown = await convertDocument(buildPdf([{ texts: sized }]), 'guide.pdf');
    expect(markdown.match(/^#+ .*$/gm)).toEqual(['# Harbour Guide', '## Introduction', '### Scope', '## Mooring Rules', '### Night Mooring']);
  });
});

describe('Excel merged titles', () => {
  it('makes a merged cell spanning the table a heading, and the next row the header', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['Otter Food Budget 2026'],
      ['Planned per month'],
      ['Item', 'Kg', 'Cost'],
      ['Fish', '120', '900'],
      ['Crabs', '15', '210'],
    ]);
    sheet['!merges'] = [
      { s: { r: 0, c: 0 }, e: { r: 0, c: 2 } },
      { s: { r: 1, c: 0 }, e: { r: 1, c: 2 } },
    ];
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, sheet, 'Food');
    for (const bookType of ['xlsx', 'biff8'] as const) {
      const bytes = Buffer.from(XLSX.write(workbook, { type: 'buffer', bookType }) as Uint8Array);
      const markdown = await convertDocument(bytes, bookType === 'xlsx' ? 'food.xlsx' : 'food.xls');
      expect(markdown).toContain(
        '## Food\n\n### Otter Food Budget 2026\n\nPlanned per month\n\n| Item | Kg | Cost |\n| --- | --- | --- |\n| Fish | 120 | 900 |',
      );
    }
  });

  it('keeps a first row that is not a merged title as the header', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([['Note'], ['Item', 'Kg'], ['Fish', '120']]);
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, sheet, 'Plain');
    const bytes = Buffer.from(XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx' }) as Uint8Array);
    expect(await convertDocument(bytes, 'plain.xlsx')).toContain('| Note |  |\n| --- | --- |\n| Item | Kg |');
  });
});

describe('PowerPoint', () => {
  it('keeps a numbered list numbered and drops LibreOffice\'s <number> field from the notes', async () => {
    const markdown = await convertDocument(readOwn('second-pass.pptx'), 'second-pass.pptx');
    expect(markdown).toMatch(/^1\. Unpack the otter kit\n2\. Fill the tank\n3\. Release the otters$/m);
    expect(markdown).toMatch(/^### Notes\n\nRemember the towels\.$/m);
    expect(markdown).not.toContain('<number>');
  });
});

describe('Word', () => {
  it('wraps whole words in marks, renders internal links as text, and lifts a nested table out of its cell', async () => {
    const markdown = await convertDocument(readOwn('second-pass.docx'), 'second-pass.docx');
    expect(markdown).toContain('See the feeding section for details. An *italic* word, a **bold** one, and *two runs* here.');
    expect(markdown).not.toContain('](#');
    expect(markdown).toMatch(/^\| Name \| Detail \|\n\| --- \| --- \|\n\| Pool.*\(nested table 1, below\).*\|\n\| Food \| Fish \|$/m);
    expect(markdown).toMatch(/^\*Nested table 1 \(row 2, column \d of the table above\):\*\n\n\| Depth \| 2 m \|\n\| --- \| --- \|\n\| Width \| 5 m \|$/m);
    expect(markdown).toMatch(/^## Feeding$/m);
  });
});

const LEFT_COLUMN = ['The north pier was', 'rebuilt in spring and', 'now takes the largest', 'ferries of the fleet.'];
const RIGHT_COLUMN = ['The south pier stays', 'closed until autumn', 'while divers inspect', 'its wooden pilings.'];

/** A scanned page: a title across the page, two columns of prose, and a ruled table under them. */
function twoColumnScan(): Buffer {
  const canvas = createCanvas(SCAN_WIDTH, SCAN_HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.lineWidth = 3;
  ctx.strokeStyle = '#000000';
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, SCAN_WIDTH, SCAN_HEIGHT);
  ctx.fillStyle = '#000000';
  ctx.font = '44px sans-serif';
  ctx.fillText('Harbour Works Bulletin', 150, 180);
  ctx.font = '32px sans-serif';
  LEFT_COLUMN.forEach((line, i) => ctx.fillText(line, 150, 300 + i * 48));
  RIGHT_COLUMN.forEach((line, i) => ctx.fillText(line, 700, 300 + i * 48));
  const rows = [['Pier', 'Ships', 'State'], ['North', '43', 'Open'], ['South', '12', 'Closed']];
  const [x0, y0, widths, rowHeight] = [150, 620, [300, 250, 300], 64];
  for (let r = 0; r <= rows.length; r++) {
    ctx.beginPath();
    ctx.moveTo(x0, y0 + r * rowHeight);
    ctx.lineTo(x0 + 850, y0 + r * rowHeight);
    ctx.stroke();
  }
  let x = x0;
  for (const w of [0, ...widths]) {
    x += w;
    ctx.beginPath();
    ctx.moveTo(x, y0);
    ctx.lineTo(x, y0 + rows.length * rowHeight);
    ctx.stroke();
  }
  rows.forEach((row, r) => {
    let cx = x0;
    row.forEach((cell, c) => {
      ctx.fillText(cell, cx + 20, y0 + r * rowHeight + 44);
      cx += widths[c] ?? 0;
    });
  });
  const jpeg = canvas.toBuffer('image/jpeg', 95);
  return buildPdf([{ image: { data: jpeg, width: SCAN_WIDTH, height: SCAN_HEIGHT } }]);
}

describe.runIf(HAS_TESSERACT)('OCR layout from Tesseract\'s word boxes', () => {
  it('reads a two-column scan column by column and rebuilds its ruled table', async () => {
    const markdown = await convertDocument(twoColumnScan(), 'bulletin.pdf', { ocr: { languages: ['eng'] } });
    const body = markdown.replace(/^>.*\n\n/, '');
    const blocks = body.trim().split('\n\n');
    expect(blocks[0]).toBe('Harbour Works Bulletin');
    expect(blocks[1]).toBe(LEFT_COLUMN.join(' '));
    expect(blocks[2]).toBe(RIGHT_COLUMN.join(' '));
    expect(blocks[3]).toBe('| Pier | Ships | State |\n| --- | --- | --- |\n| North | 43 | Open |\n| South | 12 | Closed |');
  });
});

describe.runIf(HAS_TESSERACT)('running headers and footers on scanned pages', () => {
  it('drops "Page N of 3" footers and keeps a running header once, as on text pages', async () => {
    const bodies = [['Berth seven needs new fenders'], ['The crane on pier two is serviced'], ['Signed by the harbour master']];
    const pdf = buildPdf(
      bodies.map((body, i) => {
        const data = scannedJpeg(body, { top: 'Harbour Authority', bottom: `Page ${i + 1} of 3` });
        return { image: { data, width: SCAN_WIDTH, height: SCAN_HEIGHT } };
      }),
    );
    const markdown = await convertDocument(pdf, 'scans.pdf', { ocr: { languages: ['eng'] } });
    expect(markdown).not.toMatch(/Page \d of 3/);
    expect(markdown.match(/Harbour Authority/g)).toHaveLength(1);
    const pages = markdown.split(/<!-- Page \d -->/).slice(1).map((p) => p.trim());
    expect(pages).toEqual(['Harbour Authority\n\nBerth seven needs new fenders', 'The crane on pier two is serviced', 'Signed by the harbour master']);
  });
});
