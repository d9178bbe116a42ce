// What a conversion thread started ahead of demand does before its first document: the first
// conversion in a fresh thread costs several times a later one (compiling pdf.js and its worker
// module, the parsers' modules, and running all of it cold), so a thread that has the time pays
// that off the request path. A one-page PDF built here goes through the whole PDF path (text,
// layout, structure); the other converters' modules are loaded.
import { Buffer } from 'node:buffer';
import { convertDocument } from './convert.js';

/** A one-page PDF with a heading, a paragraph and a two-column row, its offsets computed. */
function warmUpPdf(): Buffer {
  const content = [
    'BT /F1 18 Tf 72 720 Td (Warm-up) Tj ET',
    'BT /F1 11 Tf 72 690 Td (A paragraph of text that the layout analysis joins and renders.) Tj ET',
    'BT /F1 11 Tf 72 670 Td (Item) Tj ET',
    'BT /F1 11 Tf 300 670 Td (Amount) Tj ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** Loads and runs the converters once. Rejects if the PDF path fails: the caller carries on cold. */
export async function warmUp(): Promise<void> {
  await convertDocument(warmUpPdf(), 'warm-up.pdf');
  await Promise.all([import('./docx.js'), import('./xlsx.js'), import('./pptx.js')]);
}
