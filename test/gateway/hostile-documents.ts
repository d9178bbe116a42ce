// Hostile documents for the upload conversion suite, built on the fly from the project's own
// fixtures: decompression bombs, XML entity bombs, huge declared ranges, corrupt and truncated
// files, loops in OLE2 chains, and polyglots, for each format the converter reads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { PROJECT_ROOT } from '../../src/config/paths.js';
import { buildZip, deflatedZeros, type Deflated, type ZipEntrySpec } from './zip-writer.js';

const MiB = 1024 * 1024;
const own = (name: string) => readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/gateway', name));

export interface HostileDocument {
  name: string;
  bytes: Buffer;
  /** What it attacks, for test titles. */
  what: string;
}

const CONTENT_TYPES = (overrides: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  `<Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`;

const RELS = (target: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;

function docx(documentXml: string, extra: ZipEntrySpec[] = []): Buffer {
  return buildZip([
    { name: '[Content_Types].xml', data: CONTENT_TYPES('<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>') },
    { name: '_rels/.rels', data: RELS('word/document.xml') },
    { name: 'word/document.xml', data: documentXml },
    ...extra,
  ]);
}

function xlsx(sheetXml: string, sharedStrings?: string): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: CONTENT_TYPES(
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
          (sharedStrings ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' : ''),
      ),
    },
    { name: '_rels/.rels', data: RELS('xl/workbook.xml') },
    {
      name: 'xl/workbook.xml',
      data: '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Bomb" sheetId="1" r:id="rId1"/></sheets></workbook>',
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
        (sharedStrings ? '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>' : '') +
        '</Relationships>',
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheetXml },
    ...(sharedStrings ? [{ name: 'xl/sharedStrings.xml', data: sharedStrings }] : []),
  ]);
}

/** The classic "billion laughs": ten levels of ten entity references, 10^9 copies of "lol". */
const LAUGHS =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
  ']>';

/** A PDF whose one page's content stream is `stream` (already encoded with `filter`). */
function pdfWithStream(stream: Buffer, filter: string | null, extraCatalog = ''): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (chunk: string | Buffer) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buf);
    length += buf.length;
  };
  push('%PDF-1.7\n');
  const object = (id: number, body: string | Buffer[]) => {
    offsets[id] = length;
    push(`${id} 0 obj\n`);
    if (typeof body === 'string') push(body);
    else for (const b of body) push(b);
    push('\nendobj\n');
  };
  object(1, `<< /Type /Catalog /Pages 2 0 R ${extraCatalog}>>`);
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>');
  object(4, [Buffer.from(`<< /Length ${stream.length}${filter ? ` /Filter /${filter}` : ''} >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]);
  object(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const xref = length;
  push(`xref\n0 6\n0000000000 65535 f \n${offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  push(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** An OLE2 file whose directory chain points at itself: a reader that trusts the FAT loops forever. */
function oleWithLoop(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const sectorSize = 1 << out.readUInt16LE(0x1e);
  const directory = out.readUInt32LE(0x30);
  const fatSector = out.readUInt32LE(0x4c);
  const perSector = sectorSize / 4;
  if (directory < perSector) out.writeUInt32LE(directory, (fatSector + 1) * sectorSize + directory * 4);
  return out;
}

/** An OLE2 file whose header claims a FAT of millions of sectors. */
function oleWithHugeFat(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  out.writeUInt32LE(0x7fffffff, 0x2c);
  return out;
}

const half = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2));

export { pdfWithStream };

export async function hostileDocuments(): Promise<HostileDocument[]> {
  const zeros300: Deflated = await deflatedZeros(300 * MiB);
  const zeros201: Deflated = await deflatedZeros(201 * MiB);
  // A page content stream of 200 MiB of spaces: valid PDF syntax, a 200 KiB file.
  const spaces = deflateSync(Buffer.alloc(200 * MiB, 0x20), { level: 9 });
  const docxBytes = own('report.docx');
  const xlsxBytes = own('ledger.xlsx');
  const pptxBytes = own('deck.pptx');
  const pdfBytes = own('report.pdf');
  const doc = own('report.doc');
  const xls = own('ledger.xls');
  const ppt = own('deck.ppt');
  const simpleDoc = '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>';

  return [
    // PDF
    { name: 'flate-bomb.pdf', what: 'a page stream that inflates to 200 MiB', bytes: pdfWithStream(spaces, 'FlateDecode') },
    { name: 'cut.pdf', what: 'a truncated PDF', bytes: half(pdfBytes) },
    { name: 'script.pdf', what: 'a PDF with JavaScript to run on open', bytes: pdfWithStream(Buffer.from('BT /F1 12 Tf 72 720 Td (hello) Tj ET'), null, '/OpenAction << /S /JavaScript /JS (app.alert(1)) >> ') },
    { name: 'pdf-zip.pdf', what: 'a PDF that is also a zip (a docx appended)', bytes: Buffer.concat([pdfBytes, docxBytes]) },
    // DOCX
    { name: 'bomb.docx', what: 'a zip bomb declaring 201 MiB', bytes: docx(simpleDoc, [{ name: 'word/media/zeros.bin', deflated: zeros201 }]) },
    { name: 'liar.docx', what: 'a 300 MiB zip bomb declaring 1 KB', bytes: docx(simpleDoc, [{ name: 'word/media/zeros.bin', deflated: zeros300, declaredSize: 1000 }]) },
    { name: 'laughs.docx', what: 'an XML entity bomb in the document', bytes: docx(`<?xml version="1.0"?>${LAUGHS}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`) },
    { name: 'cut.docx', what: 'a truncated docx', bytes: half(docxBytes) },
    { name: 'zip-pdf.docx', what: 'a docx with a PDF in front of it', bytes: Buffer.concat([pdfBytes, docxBytes]) },
    // XLSX
    {
      name: 'range.xlsx',
      what: 'a sheet declaring the whole A1:XFD1048576 grid',
      bytes: xlsx('<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:XFD1048576"/><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>corner</t></is></c></row><row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>far corner</t></is></c></row></sheetData></worksheet>'),
    },
    {
      name: 'laughs.xlsx',
      what: 'an XML entity bomb in the shared strings',
      bytes: xlsx(
        '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>',
        `<?xml version="1.0"?>${LAUGHS}<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>`,
      ),
    },
    { name: 'cut.xlsx', what: 'a truncated xlsx', bytes: half(xlsxBytes) },
    { name: 'xlsx-as-docx.xlsx', what: 'a docx named .xlsx', bytes: docxBytes },
    // PPTX
    { name: 'cut.pptx', what: 'a truncated pptx', bytes: half(pptxBytes) },
    { name: 'liar.pptx', what: 'a pptx with a 300 MiB bomb declaring 1 KB', bytes: pptxWith({ name: 'ppt/media/zeros.bin', deflated: zeros300, declaredSize: 1000 }) },
    { name: 'pdf-as-pptx.pptx', what: 'a PDF named .pptx', bytes: pdfBytes },
    // Legacy OLE2
    { name: 'cut.doc', what: 'a truncated doc', bytes: half(doc) },
    { name: 'loop.doc', what: 'a doc whose directory chain loops', bytes: oleWithLoop(doc) },
    { name: 'loop.xls', what: 'an xls whose directory chain loops', bytes: oleWithLoop(xls) },
    { name: 'fat.xls', what: 'an xls claiming a FAT of 2^31 sectors', bytes: oleWithHugeFat(xls) },
    { name: 'cut.ppt', what: 'a truncated ppt', bytes: half(ppt) },
    { name: 'loop.ppt', what: 'a ppt whose directory chain loops', bytes: oleWithLoop(ppt) },
    { name: 'zip-as-doc.doc', what: 'an OLE2 header in front of a docx', bytes: Buffer.concat([doc.subarray(0, 512), docxBytes]) },
  ];
}

/** A minimal pptx (enough to pass type detection) carrying one more entry. */
function pptxWith(extra: ZipEntrySpec): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: CONTENT_TYPES('<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>'),
    },
    { name: '_rels/.rels', data: RELS('ppt/presentation.xml') },
    { name: 'ppt/presentation.xml', data: '<?xml version="1.0"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>' },
    extra,
  ]);
}
