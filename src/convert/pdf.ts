// PDF → Markdown. pdf.js (the copy bundled with pdf-parse) does the parsing: it gives each
// page's text items with their positions, sizes and fonts, and renders pages to @napi-rs/canvas.
// The layout analysis is ours (pdf-layout.ts, pdf-tables.ts, pdf-structure.ts): pdf.js's own
// text joining keeps neither headings nor tables. Pages without a text layer (scans) are read by
// OCR (ocr.ts) when it is configured; otherwise the Markdown says plainly that no text could be
// extracted. Large images on pages with text are read by OCR too.
import { InvalidPDFException, PDFParse, PasswordException } from 'pdf-parse';
import { ConversionError } from '../errors.js';
import { ConvertPdfParserChangedError } from './convert.errors.js';
import { hasText, joinBlocks } from './markdown.js';
import { ocrEngine } from './ocr.js';
import type { OcrOptions } from './options.js';
import { MIN_OCR_IMAGE_SIDE, runOcr } from './pdf-ocr.js';
import type { OcrOutcome, OcrTarget } from './pdf-ocr.js';
import { layoutLines } from './pdf-layout.js';
import type { PositionedText } from './pdf-layout.js';
import { pagesToMarkdown } from './pdf-structure.js';
import type { OutlineEntry, PageLines } from './pdf-structure.js';

/** The parts of a pdf.js page proxy read here (pdf-parse does not export pdf.js's types). */
interface PdfPage {
  pageNumber: number;
  getViewport(params: { scale: number }): { width: number; height: number; convertToViewportPoint(x: number, y: number): number[] };
  getTextContent(): Promise<{ items: unknown[] }>;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[] }>;
  commonObjs: { get(id: string): unknown };
}

/**
 * pdf.js's operator codes for drawing an image (its OPS.paintImageXObject and
 * OPS.paintInlineImageXObject, unchanged since pdf.js 1.0). pdf-parse does not re-export OPS, and
 * its pdf.js copy is not ours to import; the OCR-of-images test fails if these ever move.
 */
const PAINT_IMAGE_OPS = new Set([85, 86]);

/** Pages with fewer characters than this count as having no text layer. */
const MIN_PAGE_CHARS = 1;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Bold, black, heavy, semibold or medium weights, from the font's PostScript name; null if not loaded. */
function fontIsBold(page: PdfPage, fontName: string): boolean | null {
  try {
    const font = page.commonObjs.get(fontName);
    if (!isRecord(font)) return false;
    const name = typeof font.name === 'string' ? font.name : '';
    return font.bold === true || font.black === true || /bold|black|heavy|semibold|demi|[-,]medi|\bmedium\b|[-,]bd\b/i.test(name);
  } catch {
    // pdf.js has not handed this font over yet.
    return null;
  }
}

interface PageScan {
  lines: PageLines;
  /** Page width in PDF points. */
  width: number;
  chars: number;
  /** Large images drawn on the page. */
  images: number;
}

/** Looking for images to read by OCR on pages with this much text or more is not worth a second parse. */
const MAX_CHARS_TO_LOOK_FOR_IMAGES = 1500;

function countImages(operators: { fnArray: number[]; argsArray: unknown[] }): number {
  let images = 0;
  operators.fnArray.forEach((fn, i) => {
    if (!PAINT_IMAGE_OPS.has(fn)) return;
    const args = operators.argsArray[i];
    const [width, height] = Array.isArray(args) ? [Number(args[1]), Number(args[2])] : [0, 0];
    if (width >= MIN_OCR_IMAGE_SIDE && height >= MIN_OCR_IMAGE_SIDE) images++;
  });
  return images;
}

/**
 * One page's text items with positions and weights. Font names (and so weights) come with
 * pdf.js's operator list, a second parse of the page: it is asked for only while the page uses a
 * font not seen yet (font ids are the document's, so few pages pay), or, with OCR on, to find the
 * images of a page with little text.
 */
async function scanPage(page: PdfPage, weights: Map<string, boolean>, lookForImages: boolean): Promise<PageScan> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const textItems = content.items.filter(
    (item): item is Record<string, unknown> & { str: string; transform: unknown[] } =>
      isRecord(item) && typeof item.str === 'string' && Array.isArray(item.transform),
  );
  const chars = textItems.reduce((n, item) => n + item.str.trim().length, 0);
  const fontNames = new Set(textItems.map((item) => (typeof item.fontName === 'string' ? item.fontName : '')).filter(Boolean));
  const newFonts = [...fontNames].some((name) => !weights.has(name));
  // A page with no text at all is read by OCR whole: its images need not be found.
  const sparse = chars > 0 && chars < MAX_CHARS_TO_LOOK_FOR_IMAGES;
  const operators = newFonts || (lookForImages && sparse) ? await page.getOperatorList() : null;
  for (const name of fontNames) if (!weights.has(name)) weights.set(name, fontIsBold(page, name) ?? false);
  const items: PositionedText[] = textItems.map((item) => {
    const [x = 0, y = 0] = viewport.convertToViewportPoint(Number(item.transform[4]), Number(item.transform[5]));
    return {
      str: item.str,
      x,
      y,
      width: typeof item.width === 'number' ? item.width : 0,
      height: typeof item.height === 'number' ? item.height : 0,
      hasEOL: item.hasEOL === true,
      bold: typeof item.fontName === 'string' && weights.get(item.fontName) === true,
    };
  });
  const images = operators && lookForImages ? countImages(operators) : 0;
  const lines = layoutLines(items);
  return { lines: { number: page.pageNumber, height: viewport.height, lines }, width: viewport.width, chars, images };
}

function newParser(bytes: Buffer): PDFParse {
  return new PDFParse({
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
}

/**
 * Reads every page through pdf-parse's per-page step, swapped for one that keeps positions and
 * fonts. If a pdf-parse update renames that step, the conversion fails loudly, not quietly flat.
 */
async function scanPages(parser: PDFParse, lookForImages: boolean): Promise<PageScan[]> {
  const target = parser as unknown as Record<string, unknown>;
  if (typeof target.getPageText !== 'function') throw new ConvertPdfParserChangedError('pdf-parse no longer has a per-page text step.');
  const scans: PageScan[] = [];
  const weights = new Map<string, boolean>();
  target.getPageText = async (page: PdfPage) => {
    scans.push(await scanPage(page, weights, lookForImages));
    return '';
  };
  await parser.getText({ pageJoiner: '' });
  return scans;
}

function noTextNotice(pages: number, reason: string): string {
  const what = pages === 1 ? 'Its one page has' : `Its ${pages} pages have`;
  return (
    '> **No text could be extracted from this PDF.** ' +
    `${what} no text layer, so it is probably a scanned image. ${reason}\n`
  );
}

const NO_OCR = 'OCR is not configured, so its content is not available as text.';

/** What OCR should read: pages with no text layer, and large images on the others. */
function ocrTargets(scans: readonly PageScan[]): OcrTarget[] {
  return scans.flatMap((s): OcrTarget[] => {
    const at = { page: s.lines.number, width: s.width, height: s.lines.height };
    if (s.chars < MIN_PAGE_CHARS) return [{ kind: 'page', ...at }];
    return s.images > 0 ? [{ kind: 'images', ...at }] : [];
  });
}

/** Outline entries beyond this many are not read: an outline is a heading list, not a payload. */
const MAX_OUTLINE_ENTRIES = 2000;

/** The PDF's outline (bookmarks) as titles with levels, depth first; [] when it has none. */
async function readOutline(parser: PDFParse): Promise<OutlineEntry[]> {
  // A broken outline loses the outline's levels, never the document: fonts give them instead.
  const info = await parser.getInfo().catch(() => null); // see above: the text is still readable
  if (!info) return [];
  const entries: OutlineEntry[] = [];
  const pending: { node: unknown; level: number }[] = (info.outline ?? []).map((node) => ({ node, level: 1 })).reverse();
  while (pending.length > 0 && entries.length < MAX_OUTLINE_ENTRIES) {
    const next = pending.pop();
    if (!next || !isRecord(next.node)) continue;
    const { node, level } = next;
    if (typeof node.title === 'string' && node.title.trim()) entries.push({ title: node.title.trim(), level });
    const items = Array.isArray(node.items) ? (node.items as unknown[]) : [];
    for (let i = items.length - 1; i >= 0; i--) pending.push({ node: items[i], level: level + 1 });
  }
  return entries;
}

/**
 * The document in page order: runs of pages with text go through the layout analysis together
 * (paragraphs and tables continue across their page breaks), scanned pages come between them.
 */
function assemble(scans: readonly PageScan[], ocr: OcrOutcome | null, outline: readonly OutlineEntry[]): string {
  const blocks: string[] = [];
  let run: PageLines[] = [];
  const flush = () => {
    if (run.length > 0) blocks.push(pagesToMarkdown(run, outline));
    run = [];
  };
  for (const scan of scans) {
    const n = scan.lines.number;
    if (scan.chars >= MIN_PAGE_CHARS) {
      run.push(scan.lines);
      const images = ocr?.images.get(n);
      if (images) {
        flush();
        blocks.push(images);
      }
      continue;
    }
    flush();
    const marker = scans.length > 1 ? `<!-- Page ${n} -->` : '';
    const text = ocr?.pages.get(n);
    blocks.push(joinBlocks([marker, text ?? (scans.length > 1 ? '*(No text on this page: it may be a scanned image.)*' : '')]));
  }
  flush();
  return joinBlocks(blocks);
}

async function convert(parser: PDFParse, label: string, ocrOptions: OcrOptions | false | undefined): Promise<string> {
  const engine = ocrEngine(ocrOptions);
  const scans = await scanPages(parser, engine !== null);
  if (scans.length === 0) throw new ConversionError(`${label} is a PDF with no pages.`);
  const targets = engine ? ocrTargets(scans) : [];
  const ocr = engine && targets.length > 0 ? await runOcr(parser, engine, targets) : null;
  const body = assemble(scans, ocr, await readOutline(parser));
  const anyText = scans.some((s) => s.chars >= MIN_PAGE_CHARS) || [...(ocr?.pages.values() ?? [])].some(hasText);
  if (!anyText) {
    const reason = engine ? `OCR (Tesseract) found no text in it. ${ocr?.note.replace(/^> /, '') ?? ''}`.trim() : NO_OCR;
    return noTextNotice(scans.length, reason);
  }
  return joinBlocks([ocr?.note ?? '', body]);
}

/** Converts a PDF to Markdown; OCR reads its scanned pages when `ocr` is set and Tesseract is installed. */
export async function pdfToMarkdown(bytes: Buffer, label: string, ocr?: OcrOptions | false): Promise<string> {
  const parser = newParser(bytes);
  try {
    return await convert(parser, label, ocr);
  } catch (err) {
    if (err instanceof PasswordException) {
      throw new ConversionError(`${label} is password-protected and cannot be read.`, { cause: err });
    }
    if (err instanceof InvalidPDFException) {
      throw new ConversionError(`${label} is not a valid PDF (corrupt or truncated).`, { cause: err });
    }
    throw err;
  } finally {
    // Freeing the parser cannot change the pages already read.
    await parser.destroy().catch(() => {}); // the pages are read; a failed cleanup changes nothing
  }
}
