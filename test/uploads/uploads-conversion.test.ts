// Uploads of PDF and Office documents: conversion to Markdown in the sandbox, Markdown names that
// never overwrite another upload, failures that leave the upload in place with a message, and
// the shared real-world documents with the strings their README lists.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSoffice } from '../../src/convert/soffice.js';
import { PROJECT_ROOT } from '../../src/config/paths.js';
import { HAS_TESSERACT, SHARED_FIXTURES, WITH_SHARED_FIXTURES } from '../convert/support.js';
import { multipart, startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';
import { buildZip } from '../gateway/zip-writer.js';

const OWN = path.join(PROJECT_ROOT, 'test/fixtures/gateway');
const own = (name: string) => readFileSync(path.join(OWN, name));

let gw: GatewayApp;
let noSoffice: GatewayApp;
beforeAll(async () => {
  gw = await startGatewayApp();
  noSoffice = await startGatewayApp({ gateway: { conversion: { soffice: false } } });
});
afterAll(async () => {
  await gw?.close();
  await noSoffice?.close();
});

interface Entry {
  filename: string;
  markdown_file?: string;
  markdown_path?: string;
  markdown_virtual_path?: string;
  markdown_artifact_url?: string;
  message?: string;
}

async function upload(app: GatewayApp, threadId: string, ...specs: [string, Buffer | string][]) {
  const body = await multipart(specs.map(([name, data]) => ({ field: 'files', name, data })));
  const res = await app.api.app.inject({ method: 'POST', url: `/api/threads/${threadId}/uploads`, ...body });
  expect(res.statusCode).toBe(200);
  return res.json() as { success: boolean; files: Entry[]; message: string };
}
const uploadsDir = (app: GatewayApp, id: string) => path.join(app.home, 'threads', id, 'user-data', 'uploads');
const read = (app: GatewayApp, id: string, name: string) => readFileSync(path.join(uploadsDir(app, id), name), 'utf8');

describe('conversion of our own fixtures', () => {
  it.each([
    ['report.docx', 'gw-7f3a-doc', /^# Harbour Survey 2025/m],
    ['report.pdf', 'gw-7f3a-doc', /Harbour Survey 2025/],
    ['ledger.xlsx', 'gw-51c2-sheet', /^## Expenses[\s\S]*^\| Item \| Amount \|[\s\S]*^## Visitors/m],
    ['ledger.xls', 'gw-51c2-sheet', /^## Expenses[\s\S]*^## Visitors/m],
    ['deck.pptx', 'gw-c09e-slides', /Lighthouse Maintenance Plan/],
  ])('converts %s to <stem>.md with its text and structure', async (name, marker, structure) => {
    const id = randomUUID();
    const { files } = await upload(gw, id, [name, own(name)]);
    const stem = name.slice(0, name.lastIndexOf('.'));
    expect(files[0]).toMatchObject({
      filename: name,
      markdown_file: `${stem}.md`,
      markdown_path: `.warren/threads/${id}/user-data/uploads/${stem}.md`,
      markdown_virtual_path: `/mnt/user-data/uploads/${stem}.md`,
      markdown_artifact_url: `/api/threads/${id}/artifacts/mnt/user-data/uploads/${stem}.md`,
    });
    const markdown = read(gw, id, `${stem}.md`);
    expect(markdown).toContain(marker);
    expect(markdown).toMatch(structure);
  });

  it('keeps the docx table as a pipe table', async () => {
    const id = randomUUID();
    await upload(gw, id, ['report.docx', own('report.docx')]);
    expect(read(gw, id, 'report.md')).toMatch(/^\| Sailboat \| 42 *\|$/m);
  });

  it('detects the real type from the bytes: a PDF named .docx converts as a PDF', async () => {
    const id = randomUUID();
    const { files } = await upload(gw, id, ['disguised.docx', own('report.pdf')]);
    expect(files[0]?.markdown_file).toBe('disguised.md');
    expect(read(gw, id, 'disguised.md')).toContain('gw-7f3a-doc');
  });

  it('does not convert other files', async () => {
    const { files } = await upload(gw, randomUUID(), ['notes.txt', 'plain'], ['image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47])]);
    for (const f of files) expect(Object.keys(f).filter((k) => k.startsWith('markdown_') || k === 'message')).toEqual([]);
  });

  it.runIf(findSoffice() !== null || process.env.CI)('converts a .doc and a .ppt made with LibreOffice, through LibreOffice', async () => {
    const id = randomUUID();
    const { files } = await upload(gw, id, ['report.doc', own('report.doc')], ['deck.ppt', own('deck.ppt')]);
    expect(files.map((f) => f.markdown_file)).toEqual(['report.md', 'deck.md']);
    expect(read(gw, id, 'report.md')).toMatch(/^# Harbour Survey 2025/m);
    expect(read(gw, id, 'report.md')).toContain('gw-7f3a-doc');
    expect(read(gw, id, 'deck.md')).toContain('gw-c09e-slides');
  });

  it('without LibreOffice, converts .doc as plain text and uploads .ppt with a note', async () => {
    const id = randomUUID();
    const res = await upload(noSoffice, id, ['report.doc', own('report.doc')], ['deck.ppt', own('deck.ppt')]);
    const [doc, ppt] = res.files;
    expect(doc?.markdown_file).toBe('report.md');
    expect(read(noSoffice, id, 'report.md')).toContain('gw-7f3a-doc');
    expect(ppt?.markdown_file).toBeUndefined();
    expect(ppt?.message).toMatch(/deck\.ppt was not converted: \.ppt files need LibreOffice/);
    expect(res.message).toMatch(/^Uploaded 2 files\. deck\.ppt was not converted/);
    expect(existsSync(path.join(uploadsDir(noSoffice, id), 'deck.ppt'))).toBe(true);
  });
});

describe('markdown names', () => {
  it('uses <filename>.md when <stem>.md is another upload, and never touches that upload', async () => {
    const id = randomUUID();
    await upload(gw, id, ['report.md', 'my own notes']);
    const { files } = await upload(gw, id, ['report.docx', own('report.docx')]);
    expect(files[0]?.markdown_file).toBe('report.docx.md');
    expect(read(gw, id, 'report.md')).toBe('my own notes');
  });

  it('names never depend on order: <filename>.md for every document sharing a stem, in one request or two', async () => {
    const id = randomUUID();
    const first = await upload(gw, id, ['report.docx', own('report.docx')], ['report.pdf', own('report.pdf')]);
    expect(first.files.map((f) => f.markdown_file)).toEqual(['report.docx.md', 'report.pdf.md']);
    const other = randomUUID();
    const alone = await upload(gw, other, ['report.docx', own('report.docx')]);
    expect(alone.files[0]?.markdown_file).toBe('report.md');
    // A second document with the stem renames the first one's Markdown to follow the rule.
    const second = await upload(gw, other, ['report.xlsx', own('ledger.xlsx')]);
    expect(second.files[0]?.markdown_file).toBe('report.xlsx.md');
    expect(second.message).toContain('report.md is now report.docx.md: another upload shares its name\'s stem.');
    expect(readdirSync(uploadsDir(gw, other)).sort()).toEqual(['report.docx', 'report.docx.md', 'report.xlsx', 'report.xlsx.md']);
    expect(read(gw, other, 'report.docx.md')).toContain('gw-7f3a-doc');
    expect(read(gw, other, 'report.xlsx.md')).toContain('gw-51c2-sheet');
    // Once the stem is no longer shared, the remaining document's Markdown is <stem>.md again.
    const res = await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${other}/uploads/report.xlsx` });
    expect(res.statusCode).toBe(200);
    expect(readdirSync(uploadsDir(gw, other)).sort()).toEqual(['report.docx', 'report.md']);
    expect(read(gw, other, 'report.md')).toContain('gw-7f3a-doc');
  });

  it('gives up with a message when its Markdown name is another upload, touching it not', async () => {
    const id = randomUUID();
    await upload(gw, id, ['report.md', 'one'], ['report.docx.md', 'two']);
    const { files, message } = await upload(gw, id, ['report.docx', own('report.docx')]);
    expect(files[0]?.markdown_file).toBeUndefined();
    expect(files[0]?.message).toBe('report.docx was not converted: its Markdown name is taken by another upload.');
    expect(message).toContain(files[0]?.message ?? '-');
    expect([read(gw, id, 'report.md'), read(gw, id, 'report.docx.md')]).toEqual(['one', 'two']);
  });

  it('re-uploading a document refreshes its own conversion under the same name', async () => {
    const id = randomUUID();
    await upload(gw, id, ['doc.docx', own('report.docx')]);
    const again = await upload(gw, id, ['doc.docx', own('report.docx')]);
    expect(again.files[0]?.markdown_file).toBe('doc.md');
    expect(readdirSync(uploadsDir(gw, id)).sort()).toEqual(['doc.docx', 'doc.md']);
  });

  it('an upload over a conversion\'s name replaces it, and the document then converts to <filename>.md', async () => {
    const id = randomUUID();
    await upload(gw, id, ['doc.docx', own('report.docx')]);
    await upload(gw, id, ['doc.md', 'user text']);
    expect(read(gw, id, 'doc.md')).toBe('user text');
    const again = await upload(gw, id, ['doc.docx', own('report.docx')]);
    expect(again.files[0]?.markdown_file).toBe('doc.docx.md');
    expect(read(gw, id, 'doc.md')).toBe('user text');
  });

  it('a failed re-conversion removes the stale Markdown of the earlier version', async () => {
    const id = randomUUID();
    await upload(gw, id, ['doc.docx', own('report.docx')]);
    const broken = await upload(gw, id, ['doc.docx', Buffer.from('not a document at all')]);
    expect(broken.files[0]?.markdown_file).toBeUndefined();
    expect(readdirSync(uploadsDir(gw, id))).toEqual(['doc.docx']);
  });

  it('deleting a document deletes its conversion, and nothing else', async () => {
    const id = randomUUID();
    await upload(gw, id, ['report.md', 'mine'], ['report.docx', own('report.docx')]);
    const res = await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/report.docx` });
    expect(res.statusCode).toBe(200);
    expect(readdirSync(uploadsDir(gw, id))).toEqual(['report.md']);
  });
});

describe('conversion failures', () => {
  const emptyDocx = buildZip([
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>' },
    { name: '_rels/.rels', data: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>' },
    { name: 'word/document.xml', data: '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p/></w:body></w:document>' },
  ]);
  const zipBomb = buildZip([
    { name: '[Content_Types].xml', data: '<Types/>' },
    { name: 'xl/workbook.xml', data: 'x', declaredSize: 300 * 1024 * 1024 },
  ]);

  it.each([
    ['a corrupt file', 'broken.pdf', Buffer.from('%PDF-1.7\n garbage without objects'), /broken\.pdf/],
    ['bytes of no supported type', 'fake.xlsx', Buffer.from('just some text'), /fake\.xlsx .*(not a PDF or an Office document|not)/],
    ['a document with no text', 'empty.docx', emptyDocx, /empty\.docx contains no text/],
    ['a zip bomb', 'bomb.xlsx', zipBomb, /bomb\.xlsx/],
  ])('%s uploads without markdown fields and with a clear message', async (_what, name, bytes, message) => {
    const id = randomUUID();
    const res = await upload(gw, id, [name, bytes]);
    expect(res.success).toBe(true);
    expect(res.files[0]?.markdown_file).toBeUndefined();
    expect(res.files[0]?.markdown_path).toBeUndefined();
    expect(res.files[0]?.message).toMatch(message);
    expect(res.message).toContain(res.files[0]?.message ?? '-');
    expect(readdirSync(uploadsDir(gw, id))).toEqual([name]);
  });

  it('a conversion over its time limit is stopped, and the service answers on', async () => {
    const slow = await startGatewayApp({ gateway: { conversion: { timeoutMs: 1 } } });
    try {
      const id = randomUUID();
      const res = await upload(slow, id, ['report.docx', own('report.docx')]);
      expect(res.files[0]?.message).toMatch(/took longer than 1 ms/);
      expect((await slow.api.app.inject({ method: 'GET', url: '/api/models' })).statusCode).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('conversions run off the event loop: the API answers requests while a conversion is running', async () => {
    // The API's own log says when each conversion starts and ends; no clock is read.
    const conversions = { started: 0, finished: 0 };
    const app = await startGatewayApp({
      logStream: {
        write: (line: string) => {
          if (line.includes('"document conversion started"')) conversions.started += 1;
          if (line.includes('"document conversion finished"')) {
            conversions.finished += 1;
            // Each conversion is logged with its format and how long it took.
            expect(JSON.parse(line)).toMatchObject({ format: '.pdf', converted: true, duration_ms: expect.any(Number) });
          }
        },
      },
    });
    try {
      const url = await app.listen();
      const pdf = readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/documents/sample.pdf'));
      const body = await multipart(['a', 'b', 'c', 'd'].map((n) => ({ field: 'files', name: `${n}.pdf`, data: pdf })));
      let uploaded = false;
      const uploading = fetch(`${url}/api/threads/${randomUUID()}/uploads`, { method: 'POST', headers: body.headers, body: body.payload }).finally(
        () => (uploaded = true),
      );
      // A request sent and answered while a conversion was running, with no conversion ending
      // in between: impossible if converting held the event loop.
      let answeredMidConversion = 0;
      while (!uploaded) {
        const running = conversions.started > conversions.finished;
        const finishedBefore = conversions.finished;
        expect((await fetch(`${url}/api/models`)).status).toBe(200);
        if (running && conversions.finished === finishedBefore) answeredMidConversion += 1;
      }
      expect((await uploading).status).toBe(200);
      expect(conversions.finished).toBe(4);
      expect(answeredMidConversion).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

const SHARED = SHARED_FIXTURES;

describe.runIf(WITH_SHARED_FIXTURES)('shared real-world documents (../shared/fixtures/documents/markitdown)', () => {
  const expectations: Record<string, (string | RegExp)[]> = {
    'test.docx': ['314b0a30-5b04-470b-b9f7-eed2c2bec74a', '49e168b7-d2ae-407f-a055-2167576f39a1', '## d666f1f7-46cb-42bd-9a39-9a39cf2a509f', '# Abstract', '# Introduction', 'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation'],
    'test_with_comment.docx': ['314b0a30-5b04-470b-b9f7-eed2c2bec74a', '49e168b7-d2ae-407f-a055-2167576f39a1', '## d666f1f7-46cb-42bd-9a39-9a39cf2a509f', '# Abstract', '# Introduction', 'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation'],
    'equations.docx': [/[\p{L}]{4,}/u],
    'rlink.docx': [/[\p{L}\p{N}]/u],
    'test.xlsx': ['## 09060124-b5e7-4717-9d07-3c046eb', '6ff4173b-42a5-4784-9b19-f49caff4d93d', 'affc7dad-52dc-4b98-9b5d-51e65d8a8ad0', /^\| .* \|$/m],
    'test.xls': ['## 09060124-b5e7-4717-9d07-3c046eb', '6ff4173b-42a5-4784-9b19-f49caff4d93d', 'affc7dad-52dc-4b98-9b5d-51e65d8a8ad0', /^\| .* \|$/m],
    'test.pptx': ['2cdda5c8-e50e-4db4-b5f0-9722a649f455', '04191ea8-5c73-4215-a1d3-1cfb43aaaf12', '44bf7d06-5e7a-4a40-a2e1-a2e42ef28c8a', '1b92870d-e3b5-4e65-8153-919f4ff45592', 'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation', 'a3f6004b-6f4f-4ea8-bee3-3741f4dc385f', '2003'],
    'test.pdf': ['While there is contemporaneous exploration of multi-agent approaches'],
    'SPARSE-2024-INV-1234_borderless_table.pdf': ['INVENTORY RECONCILIATION REPORT', 'Report ID: SPARSE-2024-INV-1234', 'SKU-8847', 'SKU-1123', '$45.00', '$15.75', 'Total Variance Cost: $4,287.50', 'Overall Accuracy: 97.2%'],
    'RECEIPT-2024-TXN-98765_retail_purchase.pdf': ['TECHMART ELECTRONICS', 'TXN: TXN-98765-2024', 'Cashier: Emily Rodriguez', 'USB-C Hub 7-in-1 Adapter', '$863.91', 'Sales Tax (8.5%)', '$821.14', 'Visa Card ending in 4782'],
    'REPAIR-2022-INV-001_multipage.pdf': ['ZAVA AUTO REPAIR', 'Collision Repair', 'Redmond, WA', 'Gabriel Diaz', 'Grand Cherokee', 'Body Labor', 'Paint Labor', 'GRAND TOTAL'],
    // OCR is on by default: with Tesseract installed the scan is read, else the Markdown says why not.
    'MEDRPT-2024-PAT-3847_medical_report_scan.pdf': HAS_TESSERACT ? [/recognised by OCR/, 'SEATTLE GENERAL HOSPITAL'] : [/no text/i],
    'movie-theater-booking-2024.pdf': [/[\p{L}]{4,}/u],
    'masterformat_partial_numbering.pdf': [/[\p{L}]{4,}/u],
  };

  it('finds the shared fixtures (fails loudly when they are missing)', () => {
    if (!existsSync(SHARED)) throw new Error(`Shared fixtures not found at ${SHARED}: the test suite needs ../shared beside the project.`);
    expect(readdirSync(SHARED).sort()).toEqual(Object.keys(expectations).sort());
  });

  it.each(Object.entries(expectations))('%s uploads and converts with the expected strings', async (name, wanted) => {
    const id = randomUUID();
    const { files } = await upload(gw, id, [name, readFileSync(path.join(SHARED, name))]);
    expect(files[0]?.message).toBeUndefined();
    expect(files[0]?.markdown_file).toBe(`${name.slice(0, name.lastIndexOf('.'))}.md`);
    const markdown = read(gw, id, files[0]?.markdown_file ?? '');
    for (const want of wanted) {
      if (typeof want === 'string') expect(markdown).toContain(want);
      else expect(markdown).toMatch(want);
    }
    expect(markdown).not.toMatch(/data:image\/[a-z]+;base64/);
  });
});
