// Writes a large, valid, text-only PDF (Helvetica, uncompressed content streams): many pages of
// numbered paragraphs under a heading, so the converter has real text and layout to work on.
// No PDF tool on these machines can concatenate pages, so the bench builds its own.

const WORDS = ['warren', 'stream', 'thread', 'worker', 'redis', 'token', 'graph', 'client', 'replay', 'cursor', 'relay', 'upload', 'document', 'table', 'heading', 'latency'];

/** A deterministic word sequence (xorshift), so every run converts the same document. */
function wordSource(seed: number): () => string {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return WORDS[(x >>> 0) % WORDS.length] as string;
  };
}

function pageContent(page: number, next: () => string): string {
  const lines = [`BT /F1 16 Tf 56 740 Td (Section ${page + 1}: benchmark page) Tj ET`, 'BT /F1 10 Tf 56 710 Td 13 TL'];
  for (let line = 0; line < 52; line++) {
    const words = Array.from({ length: 14 }, next).join(' ');
    lines.push(`(${page + 1}.${line + 1} ${words}) Tj T*`);
  }
  lines.push('ET');
  return lines.join('\n');
}

/** A PDF of about `targetMiB` MiB. */
export function makeTextPdf(targetMiB: number): Buffer {
  const next = wordSource(2026);
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: page tree, 3: font; then a page and its content stream per page.
  const header = '%PDF-1.4\n';
  let size = header.length;
  const target = targetMiB * 1024 * 1024;
  for (let page = 0; size < target; page++) {
    const content = pageContent(page, next);
    const pageId = 4 + page * 2;
    pageIds.push(pageId);
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
    size += content.length + 200;
  }
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

  let body = header;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = body.length;
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xrefAt = body.length;
  const xref = [`xref\n0 ${objects.length}\n`, '0000000000 65535 f \n', ...offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  body += `${xref}trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
