// OCR of a PDF's scanned pages and of large images on its other pages. pdf.js (through
// pdf-parse) renders each scanned page to a PNG on @napi-rs/canvas, or decodes the image, and
// Tesseract reads it (ocr.ts). The document's OCR has one time budget and a cap on the pages and
// images read; what falls outside them is named in the Markdown, never silently dropped.
import type { PDFParse } from 'pdf-parse';
import { ConversionError } from '../errors.js';
import { hasText, joinBlocks } from './markdown.js';
import { ConvertPdfParserChangedError } from './convert.errors.js';
import { eraseRules, pageImageForOcr } from './ocr-image.js';
import { ocrPagesToMarkdown, ocrTsvToMarkdown, parseOcrPage } from './ocr-layout.js';
import type { OcrPage } from './ocr-layout.js';
import type { OcrEngine } from './ocr.js';

export interface OcrTarget {
  /** `page`: the page has no text layer; `images`: read the large images on a page with text. */
  kind: 'page' | 'images';
  page: number;
  /** Page size in PDF points. */
  width: number;
  height: number;
}

export interface OcrOutcome {
  /** Markdown of each scanned page read, by page number. */
  pages: Map<number, string>;
  /** Markdown of the text in images, by page number. */
  images: Map<number, string>;
  /** A note for the top of the document: that OCR was used, and what it left out. */
  note: string;
}

/** Tesseract reads best at about 300 dpi. */
const OCR_DPI = 300;
/** Rendered pages are capped at this many pixels on their long side (memory). */
const MAX_RENDER_SIDE = 4200;
/** Images smaller than this (pixels, either side) are icons and rules, not text to read. */
export const MIN_OCR_IMAGE_SIDE = 200;

/** The parts of pdf.js's document and page proxies used to render a page (pdf-parse exports no types). */
interface CanvasAndContext {
  canvas: { width: number; height: number };
  context: { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray; width: number; height: number } };
}
interface RenderablePage {
  getViewport(params: { scale: number }): { width: number; height: number };
  render(params: { canvasContext: unknown; viewport: unknown; canvas: unknown }): { promise: Promise<void> };
  cleanup(): void;
}
interface RenderableDocument {
  getPage(page: number): Promise<RenderablePage>;
  canvasFactory: { create(width: number, height: number): CanvasAndContext; destroy(canvasAndContext: CanvasAndContext): void };
}

/** pdf-parse's loaded pdf.js document. If an update renames its loader, OCR fails loudly. */
async function documentOf(parser: PDFParse): Promise<RenderableDocument> {
  const target = parser as unknown as { load?: unknown };
  if (typeof target.load !== 'function') throw new ConvertPdfParserChangedError('pdf-parse no longer has a document loader.');
  return (await (target.load as () => Promise<unknown>).call(parser)) as RenderableDocument;
}

/**
 * Renders a page and hands its pixels straight to OCR: pdf-parse's screenshot would encode a
 * page-sized PNG, which the rule eraser then decoded again, and both cost far more than the OCR's
 * own image work.
 */
async function renderPage(parser: PDFParse, target: OcrTarget): Promise<Uint8Array[]> {
  const scale = Math.min(OCR_DPI / 72, MAX_RENDER_SIDE / Math.max(target.width, target.height, 1));
  const doc = await documentOf(parser);
  const page = await doc.getPage(target.page);
  const viewport = page.getViewport({ scale });
  const drawing = doc.canvasFactory.create(viewport.width, viewport.height);
  try {
    const { canvas, context } = drawing;
    await page.render({ canvasContext: context, viewport, canvas }).promise;
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
    return pixels.width > 0 && pixels.height > 0 ? [pageImageForOcr(pixels.data, pixels.width, pixels.height)] : [];
  } finally {
    // A page-sized canvas is tens of megabytes: freed now, not when the collector gets to it.
    doc.canvasFactory.destroy(drawing);
    page.cleanup();
  }
}

async function pageImages(parser: PDFParse, target: OcrTarget): Promise<Uint8Array[]> {
  const found = await parser.getImage({ partial: [target.page], imageThreshold: MIN_OCR_IMAGE_SIDE - 1, imageBuffer: true, imageDataUrl: false });
  return found.pages.flatMap((p) => p.images.map((i) => i.data)).filter((d) => d.length > 0);
}

function pageList(pages: readonly number[]): string {
  if (pages.length === 1) return `page ${pages[0]}`;
  return `pages ${pages.slice(0, -1).join(', ')} and ${pages.at(-1)}`;
}

function describeNote(engine: OcrEngine, read: number[], left: number[], failed: number[], reason: string): string {
  const parts: string[] = [];
  if (read.length > 0) {
    parts.push(
      `**The text of ${pageList(read)} was recognised by OCR** (Tesseract, ${engine.languages.join('+')}) from scanned images; it may contain recognition errors.`,
    );
  }
  if (failed.length > 0) parts.push(`OCR failed on ${pageList(failed)}.`);
  if (left.length > 0) parts.push(`${pageList(left)} ${left.length === 1 ? 'was' : 'were'} not read by OCR: ${reason}.`);
  return parts.length > 0 ? `> ${parts.join(' ')}` : '';
}

/** Reads the targets by OCR, in page order, within the engine's time budget and page cap. */
export async function runOcr(parser: PDFParse, engine: OcrEngine, targets: readonly OcrTarget[]): Promise<OcrOutcome> {
  const deadline = Date.now() + engine.timeoutMs;
  const outcome: OcrOutcome = { pages: new Map(), images: new Map(), note: '' };
  const read: number[] = [];
  const failed: number[] = [];
  const left: number[] = [];
  let reason = '';
  let recognised = 0;
  /** The scanned pages read, in page order. */
  const scanned: OcrPage[] = [];
  for (const target of targets) {
    const remaining = deadline - Date.now();
    if (recognised >= engine.maxPages || remaining <= 0) {
      reason ||= remaining <= 0 ? 'the OCR time limit was reached' : `OCR reads at most ${engine.maxPages} pages or images per document`;
      if (target.kind === 'page') left.push(target.page);
      continue;
    }
    const images = target.kind === 'page' ? await renderPage(parser, target) : await pageImages(parser, target);
    const tsvs: string[] = [];
    try {
      for (const image of images.slice(0, Math.max(0, engine.maxPages - recognised))) {
        recognised++;
        // A rendered page comes ready (PGM); an embedded image is a PNG still to clean.
        const ready = target.kind === 'page' ? image : await eraseRules(image);
        tsvs.push(await engine.recognise(ready, Math.max(1000, deadline - Date.now())));
      }
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      if (target.kind === 'page') failed.push(target.page);
      continue;
    }
    if (target.kind === 'page') {
      read.push(target.page);
      scanned.push(...tsvs.map((tsv) => parseOcrPage(tsv, target.page)));
      continue;
    }
    const text = joinBlocks(tsvs.map(ocrTsvToMarkdown));
    if (hasText(text)) outcome.images.set(target.page, joinBlocks(['*Text in an image on this page, recognised by OCR:*', text]));
  }
  // Scanned pages are laid out together, so their running headers and footers can be told apart.
  const markdown = ocrPagesToMarkdown(scanned);
  for (const page of read) {
    outcome.pages.set(page, joinBlocks(markdown.flatMap((text, i) => (scanned[i]?.number === page ? [text] : []))));
  }
  outcome.note = describeNote(engine, read, left, failed, reason);
  return outcome;
}
