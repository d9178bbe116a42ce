// PDF → Markdown. pdf.js (the copy bundled with pdf-parse) does the parsing: it gives each
// page's text items with their positions, sizes and fonts, and renders pages to @napi-rs/canvas.
// The layout analysis is ours (pdf-layout.ts, pdf-tables.ts, pdf-structure.ts): pdf.js's own
// text joining keeps neither headings nor tables. Pages without a text layer (scans) are read by
// OCR (ocr.ts) when it is configured; otherwise the Markdown says plainly that no text could be
// extracted. Large images on pages with text are read by OCR too.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { InvalidPDFException, PDFParse, PasswordException } from 'pdf-parse';
import { ConversionError } from '../errors.js';
import { hasText, joinBlocks } from './markdown.js';
import { ocrEngine } from './ocr.js';
import type { OcrOptions } from './options.js';
import { runOcr } from './pdf-ocr.js';
import type { OcrOutcome, OcrTarget } from './pdf-ocr.js';
import { layoutLines } from './pdf-layout.js';
import type { PositionedText } from './pdf-layout.js';
import { pagesToMarkdown } from './pdf-structure.js';
import type { PageLines } from './pdf-structure.js';

/** The parts of a pdf.js page proxy read here (pdf-parse does not export pdf.js's types). */
interface PdfPage {
  pageNumber: number;
  getViewport(params: { scale: number }): { width: number; height: number; convertToViewportPoint(x: number, y: number): number[] };
  getTextContent(): Promise<{ items: unknown[] }>;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[] }>;
  commonObjs: { get(id: string): unknown };
}

interface PdfJsOps {
  paintImageXObject: number;
  paintInlineImageXObject: number;
}

/** Images smaller than this (pixels, either side) are icons and rules, not text to read. */
const MIN_OCR_IMAGE_SIDE = 200;
/** Pages with fewer characters than this count as having no text layer. */
const MIN_PAGE_CHARS = 1;

let opsPromise: Promise<PdfJsOps> | null = null;

/** pdf.js's operator codes, from the copy pdf-parse loads (not another version in node_modules). */
function pdfJsOps(): Promise<PdfJsOps> {
  opsPromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const pdfjsPath = createRequire(require.resolve('pdf-parse')).resolve('pdfjs-dist/legacy/build/pdf.mjs');
    const pdfjs = (await import(pathToFileURL(pdfjsPath).href)) as { OPS: PdfJsOps };
    return pdfjs.OPS;
  })();
  return opsPromise;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Bold, black, heavy, semibold or medium weights, from the font's PostScript name. */
function isBoldFont(page: PdfPage, fontName: string, cache: Map<string, boolean>): boolean {
  const known = cache.get(fontName);
  if (known !== undefined) return known;
  let bold = false;
  try {
    const font = page.commonObjs.get(fontName);
    if (isRecord(font)) {
      const name = typeof font.name === 'string' ? font.name : '';
      bold = font.bold === true || font.black === true || /bold|black|heavy|semibold|demi|[-,]medi|\bmedium\b|[-,]bd\b/i.test(name);
    }
  } catch {
    // The font was not loaded: weight unknown, taken as regular.
  }
  cache.set(fontName, bold);
  return bold;
}

interface PageScan {
  lines: PageLines;
  /** Page width in PDF points. */
  width: number;
  chars: number;
  /** Large images drawn on the page. */
  images: number;
}

async function scanPage(page: PdfPage, ops: PdfJsOps): Promise<PageScan> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  // The operator list loads the fonts, whose names say their weight, and lists the images.
  const operators = await page.getOperatorList();
  const fonts = new Map<string, boolean>();
  const items: PositionedText[] = [];
  let chars = 0;
  for (const item of content.items) {
    if (!isRecord(item) || typeof item.str !== 'string' || !Array.isArray(item.transform)) continue;
    const [tx, ty] = [Number(item.transform[4]), Number(item.transform[5])];
    const [x = 0, y = 0] = viewport.convertToViewportPoint(tx, ty);
    chars += item.str.trim().length;
    items.push({
      str: item.str,
      x,
      y,
      width: typeof item.width === 'number' ? item.width : 0,
      height: typeof item.height === 'number' ? item.height : 0,
      hasEOL: item.hasEOL === true,
      bold: typeof item.fontName === 'string' && isBoldFont(page, item.fontName, fonts),
    });
  }
  let images = 0;
  operators.fnArray.forEach((fn, i) => {
    if (fn !== ops.paintImageXObject && fn !== ops.paintInlineImageXObject) return;
    const args = operators.argsArray[i];
    const [width, height] = Array.isArray(args) ? [Number(args[1]), Number(args[2])] : [0, 0];
    if (width >= MIN_OCR_IMAGE_SIDE && height >= MIN_OCR_IMAGE_SIDE) images++;
  });
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
async function scanPages(parser: PDFParse): Promise<PageScan[]> {
  const target = parser as unknown as Record<string, unknown>;
  if (typeof target.getPageText !== 'function') throw new Error('pdf-parse no longer has a per-page text step.');
  const ops = await pdfJsOps();
  const scans: PageScan[] = [];
  target.getPageText = async (page: PdfPage) => {
    scans.push(await scanPage(page, ops));
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

/**
 * The document in page order: runs of pages with text go through the layout analysis together
 * (paragraphs and tables continue across their page breaks), scanned pages come between them.
 */
function assemble(scans: readonly PageScan[], ocr: OcrOutcome | null): string {
  const blocks: string[] = [];
  let run: PageLines[] = [];
  const flush = () => {
    if (run.length > 0) blocks.push(pagesToMarkdown(run));
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
  const scans = await scanPages(parser);
  if (scans.length === 0) throw new ConversionError(`${label} is a PDF with no pages.`);
  const engine = ocrEngine(ocrOptions);
  const targets = engine ? ocrTargets(scans) : [];
  const ocr = engine && targets.length > 0 ? await runOcr(parser, engine, targets) : null;
  const body = assemble(scans, ocr);
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
    await parser.destroy().catch(() => {});
  }
}
