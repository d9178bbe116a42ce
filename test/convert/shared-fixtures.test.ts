// Every real-world document in ../shared/fixtures/documents/markitdown must convert and contain
// the strings that /work/shared/fixtures/documents/README.md lists for it, with its structure
// (headings, pipe tables) kept. Missing fixtures fail these tests; they never skip.
import { existsSync, promises as fsPromises, readdirSync } from 'node:fs';
import mammoth from 'mammoth';
import { describe, expect, it, vi } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { HAS_TESSERACT, SHARED_FIXTURES, WITH_SHARED_FIXTURES, readShared } from './support.js';

const DOCX_STRINGS = [
  '314b0a30-5b04-470b-b9f7-eed2c2bec74a',
  '49e168b7-d2ae-407f-a055-2167576f39a1',
  '## d666f1f7-46cb-42bd-9a39-9a39cf2a509f',
  '# Abstract',
  '# Introduction',
  'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation',
];

const SHEET_STRINGS = [
  '## 09060124-b5e7-4717-9d07-3c046eb',
  '6ff4173b-42a5-4784-9b19-f49caff4d93d',
  'affc7dad-52dc-4b98-9b5d-51e65d8a8ad0',
];

/** Per file: the strings its Markdown must contain (from the fixtures README). */
const EXPECTED: Record<string, readonly string[]> = {
  'test.docx': DOCX_STRINGS,
  'test_with_comment.docx': DOCX_STRINGS,
  'equations.docx': ['For', 'The angle is', 'From Eq. 36.1.3'],
  'rlink.docx': ['Testing Linked Images'],
  'test.xlsx': SHEET_STRINGS,
  'test.xls': SHEET_STRINGS,
  'test.pptx': [
    '2cdda5c8-e50e-4db4-b5f0-9722a649f455',
    '04191ea8-5c73-4215-a1d3-1cfb43aaaf12',
    '44bf7d06-5e7a-4a40-a2e1-a2e42ef28c8a',
    '1b92870d-e3b5-4e65-8153-919f4ff45592',
    'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation',
    'a3f6004b-6f4f-4ea8-bee3-3741f4dc385f',
    '2003',
  ],
  'test.pdf': ['While there is contemporaneous exploration of multi-agent approaches'],
  'SPARSE-2024-INV-1234_borderless_table.pdf': [
    'INVENTORY RECONCILIATION REPORT',
    'Report ID: SPARSE-2024-INV-1234',
    'SKU-8847',
    'SKU-1123',
    '$45.00',
    '$15.75',
    'Total Variance Cost: $4,287.50',
    'Overall Accuracy: 97.2%',
  ],
  'RECEIPT-2024-TXN-98765_retail_purchase.pdf': [
    'TECHMART ELECTRONICS',
    'TXN: TXN-98765-2024',
    'Cashier: Emily Rodriguez',
    'USB-C Hub 7-in-1 Adapter',
    '$863.91',
    'Sales Tax (8.5%)',
    '$821.14',
    'Visa Card ending in 4782',
  ],
  'REPAIR-2022-INV-001_multipage.pdf': [
    'ZAVA AUTO REPAIR',
    'Collision Repair',
    'Redmond, WA',
    'Gabriel Diaz',
    'Grand Cherokee',
    'Body Labor',
    'Paint Labor',
    'GRAND TOTAL',
  ],
  'MEDRPT-2024-PAT-3847_medical_report_scan.pdf': ['No text could be extracted'],
  'movie-theater-booking-2024.pdf': ['BOOKING ORDER', 'STARLIGHT CINEMAS', 'Holiday Spectacular', '| Total Revenue: |', '| $12,500.00 |'],
  'masterformat_partial_numbering.pdf': ['RFP for Construction Management Services', '1. INTENT', 'KEN SARGENT HOUSE'],
};

/** A GFM pipe table: a header row followed by a delimiter row. */
const PIPE_TABLE = /^\|.*\|\n\|( :?-{3,}:? \|)+$/m;

function position(markdown: string, text: string): number {
  const at = markdown.indexOf(text);
  expect(at, `missing: ${text}`).toBeGreaterThanOrEqual(0);
  return at;
}

describe.runIf(WITH_SHARED_FIXTURES)('shared real-world fixtures', () => {
  it('are present, and every one of them has expectations here', () => {
    expect(existsSync(SHARED_FIXTURES), `fixtures not found at ${SHARED_FIXTURES}`).toBe(true);
    const files = readdirSync(SHARED_FIXTURES).filter((f) => !f.startsWith('.'));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [file, strings] of Object.entries(EXPECTED)) {
    it(`converts ${file} with its required strings`, async () => {
      const markdown = await convertDocument(readShared(file), file);
      for (const text of strings) expect(markdown).toContain(text);
      expect(markdown).not.toMatch(/data:image\/|base64,/);
    });
  }

  it('keeps headings and the table of test.docx, with no inline image data', async () => {
    const markdown = await convertDocument(readShared('test.docx'), 'test.docx');
    expect(markdown).toMatch(/^# Abstract$/m);
    expect(markdown).toMatch(/^# Introduction$/m);
    expect(markdown).toMatch(PIPE_TABLE);
    expect(markdown).toMatch(/^\| 13 +\| 14 +\| 49e168b7-d2ae-407f-a055-2167576f39a1 \|/m);
    expect(markdown).toMatch(/\[Image: [^\]]+\]/);
    expect(markdown).not.toMatch(/!\[|base64/);
  });

  it('gives each sheet of test.xlsx and test.xls a heading and a pipe table', async () => {
    for (const file of ['test.xlsx', 'test.xls']) {
      const markdown = await convertDocument(readShared(file), file);
      expect(markdown.match(/^## /gm)).toHaveLength(2);
      expect(markdown).toMatch(/^## Sheet1$/m);
      expect(markdown.match(/^\|( --- \|)+$/gm)).toHaveLength(2);
      expect(markdown).toContain('| Alpha | Beta | Gamma | Delta |');
    }
  });

  it('gives each slide of test.pptx a heading, keeps titles, the table and the chart data', async () => {
    const markdown = await convertDocument(readShared('test.pptx'), 'test.pptx');
    expect(markdown.match(/^## Slide \d+$/gm)).toHaveLength(6);
    expect(markdown).toMatch(/^### AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation$/m);
    expect(markdown).toMatch(/^### A table to test parsing:$/m);
    expect(markdown).toMatch(PIPE_TABLE);
    expect(markdown).toContain('**Chart: a3f6004b-6f4f-4ea8-bee3-3741f4dc385f**');
    expect(markdown).toMatch(/^\| 2003 \| 2003 \|$/m);
    expect(markdown).toMatch(/^ {2}- Sub comment 2$/m);
    expect(position(markdown, '## Slide 1')).toBeLessThan(position(markdown, '## Slide 2'));
  });

  it('keeps page breaks (as comments) and reading order in a multi-page PDF', async () => {
    const markdown = await convertDocument(readShared('REPAIR-2022-INV-001_multipage.pdf'), 'repair.pdf');
    expect(markdown.match(/^<!-- Page \d+ -->$/gm)).toEqual(['<!-- Page 2 -->', '<!-- Page 3 -->']);
    // The form draws its letterhead last; reading order puts it first.
    expect(markdown).toMatch(/^# ZAVA AUTO REPAIR$/m);
    expect(position(markdown, 'ZAVA AUTO REPAIR')).toBeLessThan(position(markdown, '| Insured name | Gabriel Diaz | Year | 2022 |'));
    expect(position(markdown, 'Gabriel Diaz')).toBeLessThan(position(markdown, '| GRAND TOTAL |  |  | 5,738 |'));
    expect(markdown).toMatch(/^\| Body Labor \| 2 \| 150 \| 300 \|$/m);
  });

  it('makes "1 Introduction" of the paper a heading and joins its hard-wrapped paragraphs', async () => {
    const markdown = await convertDocument(readShared('test.pdf'), 'test.pdf');
    expect(markdown).toMatch(/^# 1 Introduction$/m);
    // Lines joined, and words broken at a line end made whole again.
    expect(markdown).toContain('Large language models (LLMs) are becoming a crucial building block in developing powerful agents that utilize LLMs');
    expect(markdown).toContain('three reasons confirming its general feasibility');
    expect(markdown).not.toMatch(/con-\s*firming/);
  });

  it('rebuilds the borderless invoice table with its sparse cells in their columns', async () => {
    const markdown = await convertDocument(readShared('SPARSE-2024-INV-1234_borderless_table.pdf'), 'invoice.pdf');
    expect(markdown).toMatch(/^# INVENTORY RECONCILIATION REPORT$/m);
    expect(markdown).toContain('| Product Code | Location | Expected | Actual | Variance | Status |');
    expect(markdown).toContain('| SKU-8847 | A-12 | 450 |  |  |  |');
    expect(markdown).toContain('|  | B-07 |  | 289 | -23 |  |');
    expect(markdown).toContain('| SKU-4563 | D-22 |  | 156 |  | CRITICAL |');
    expect(markdown).toContain('| Product Code | Category | Unit Cost | Total Value | Last Audit | Notes |');
    expect(markdown).toContain('| SKU-7728 | Accessories | $15.75 | $14,726.25 | 2024-11-01 |  |');
    expect(markdown).toContain('| SKU-1123 | Hardware | $55.00 | $27,500.00 | 2024-10-30 | Verified |');
    expect(markdown).toMatch(/^## Summary Statistics:$/m);
  });

  it('leaves the receipt\'s rules of = unescaped, on their own lines', async () => {
    const markdown = await convertDocument(readShared('RECEIPT-2024-TXN-98765_retail_purchase.pdf'), 'receipt.pdf');
    expect(markdown).not.toContain('\\=');
    expect(markdown).toMatch(/\n\n={20,}\n\n/);
    expect(markdown).toMatch(/^# TECHMART ELECTRONICS$/m);
    // Short receipt lines keep their breaks.
    expect(markdown).toContain('Cashier: Emily Rodriguez\nRegister: POS-07');
  });

  it('keeps a side-by-side form in its drawing order', async () => {
    const markdown = await convertDocument(readShared('movie-theater-booking-2024.pdf'), 'booking.pdf');
    const left = position(markdown, 'Order Type: Premium Package');
    expect(position(markdown, 'Order / Rev: 2024-12-5678')).toBeLessThan(left);
    expect(left).toBeLessThan(position(markdown, 'Cinema: Downtown Multiplex'));
  });

  it('says plainly that a scanned PDF has no text, as a successful conversion', async () => {
    const markdown = await convertDocument(readShared('MEDRPT-2024-PAT-3847_medical_report_scan.pdf'), 'scan.pdf');
    expect(markdown).toMatch(/No text could be extracted from this PDF/);
    expect(markdown).toMatch(/scanned/);
  });

  it.runIf(HAS_TESSERACT)('reads the scanned medical report by OCR when OCR is on, and says so', async () => {
    const markdown = await convertDocument(readShared('MEDRPT-2024-PAT-3847_medical_report_scan.pdf'), 'scan.pdf', { ocr: { languages: ['eng'] } });
    expect(markdown).toMatch(/^> \*\*The text of pages 1, 2 and 3 was recognised by OCR\*\* \(Tesseract, eng\)/);
    expect(markdown).toContain('SEATTLE GENERAL HOSPITAL');
    expect(markdown).toContain('MEDRPT-2024-PAT-3847');
    expect(markdown).not.toContain('No text could be extracted');
  });

  it('reads no file outside rlink.docx (its image links to file:///tmp/test_rlink.txt)', async () => {
    const bytes = readShared('rlink.docx');
    const readFile = vi.spyOn(fsPromises, 'readFile');
    const readsLink = () => readFile.mock.calls.some(([file]) => String(file).includes('test_rlink'));
    try {
      const markdown = await convertDocument(bytes, 'rlink.docx');
      expect(markdown).toContain('[Image: A red and blue square');
      expect(readsLink()).toBe(false);
      // The spy does see mammoth's reads: with external access on, mammoth goes for the link.
      await mammoth.convertToHtml({ buffer: bytes }, { externalFileAccess: true });
      expect(readsLink()).toBe(true);
    } finally {
      readFile.mockRestore();
    }
  });
});
