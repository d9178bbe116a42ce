// PDF → Markdown with pdf-parse (pdf.js): the text of each page in the order the PDF draws it,
// under a `## Page N` heading when there is more than one page. A PDF without a text layer (a
// scan) is not an error: the Markdown says plainly that no text could be extracted.
import { InvalidPDFException, PDFParse, PasswordException } from 'pdf-parse';
import { ConversionError } from '../errors.js';
import { escapeLineStart, hasText, joinBlocks } from './markdown.js';
import { layoutText } from './pdf-layout.js';
import type { PositionedText } from './pdf-layout.js';

/** The parts of a pdf.js page proxy read here (pdf-parse does not export pdf.js's types). */
interface PdfPage {
  getViewport(params: { scale: number }): { convertToViewportPoint(x: number, y: number): number[] };
  getTextContent(): Promise<{ items: unknown[] }>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

async function positionedItems(page: PdfPage): Promise<PositionedText[]> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const items: PositionedText[] = [];
  for (const item of content.items) {
    if (!isRecord(item) || typeof item.str !== 'string' || !Array.isArray(item.transform)) continue;
    const [tx, ty] = [Number(item.transform[4]), Number(item.transform[5])];
    const [x = 0, y = 0] = viewport.convertToViewportPoint(tx, ty);
    items.push({
      str: item.str,
      x,
      y,
      width: typeof item.width === 'number' ? item.width : 0,
      height: typeof item.height === 'number' ? item.height : 0,
      hasEOL: item.hasEOL === true,
    });
  }
  return items;
}

/**
 * pdf-parse joins a page's text in drawing order. Its per-page step is swapped for one that
 * rebuilds reading order from positions; if a pdf-parse update renames that step, its own
 * text is used unchanged.
 */
function useLayoutOrder(parser: PDFParse): void {
  const target = parser as unknown as Record<string, unknown>;
  if (typeof target.getPageText !== 'function') return;
  target.getPageText = async (page: PdfPage) => layoutText(await positionedItems(page));
}

function pageMarkdown(text: string): string {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => escapeLineStart(line.replace(/\t/g, '  ').trimEnd()));
  // Keep the PDF's line breaks, but never more than one blank line in a row.
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

function noTextNotice(pages: number): string {
  const what = pages === 1 ? 'Its one page has' : `Its ${pages} pages have`;
  return (
    '> **No text could be extracted from this PDF.** ' +
    `${what} no text layer, so it is probably a scanned image. ` +
    'OCR is not configured, so its content is not available as text.\n'
  );
}

async function extractPages(bytes: Buffer): Promise<{ total: number; pages: string[] }> {
  const parser = new PDFParse({
    // pdf.js takes ownership of the array it is given, so hand it a copy.
    data: new Uint8Array(bytes),
    // Hardening for hostile files: no eval'd font code, no fonts or scripts from outside.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  useLayoutOrder(parser);
  try {
    const result = await parser.getText({ pageJoiner: '' });
    const byNumber = new Map(result.pages.map((p) => [p.num, p.text]));
    const pages = Array.from({ length: result.total }, (_, i) => byNumber.get(i + 1) ?? '');
    return { total: result.total, pages };
  } finally {
    // Freeing the parser cannot change the pages already read.
    await parser.destroy().catch(() => {});
  }
}

/** Converts a PDF to Markdown. */
export async function pdfToMarkdown(bytes: Buffer, label: string): Promise<string> {
  let extracted: { total: number; pages: string[] };
  try {
    extracted = await extractPages(bytes);
  } catch (err) {
    if (err instanceof PasswordException) {
      throw new ConversionError(`${label} is password-protected and cannot be read.`, { cause: err });
    }
    if (err instanceof InvalidPDFException) {
      throw new ConversionError(`${label} is not a valid PDF (corrupt or truncated).`, { cause: err });
    }
    throw err;
  }
  const { total, pages } = extracted;
  if (total === 0) throw new ConversionError(`${label} is a PDF with no pages.`);
  const rendered = pages.map(pageMarkdown);
  if (!rendered.some(hasText)) return noTextNotice(total);
  if (total === 1) return joinBlocks(rendered);
  return joinBlocks(
    rendered.map((text, i) =>
      joinBlocks([`## Page ${i + 1}`, hasText(text) ? text : '*(No text on this page: it may be a scanned image.)*']),
    ),
  );
}
