// OCR of a PDF's scanned pages and of large images on its other pages. pdf.js (through
// pdf-parse) renders each scanned page to a PNG on @napi-rs/canvas, or decodes the image, and
// Tesseract reads it (ocr.ts). The document's OCR has one time budget and a cap on the pages and
// images read; what falls outside them is named in the Markdown, never silently dropped.
import type { PDFParse } from 'pdf-parse';
import { ConversionError } from '../errors.js';
import { hasText, joinBlocks } from './markdown.js';
import { eraseRules } from './ocr-image.js';
import { ocrTsvToMarkdown } from './ocr-layout.js';
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

async function renderPage(parser: PDFParse, target: OcrTarget): Promise<Uint8Array[]> {
  const scale = Math.min(OCR_DPI / 72, MAX_RENDER_SIDE / Math.max(target.width, target.height, 1));
  const shot = await parser.getScreenshot({ partial: [target.page], scale, imageBuffer: true, imageDataUrl: false });
  return shot.pages.map((p) => p.data).filter((d) => d.length > 0);
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
  for (const target of targets) {
    const remaining = deadline - Date.now();
    if (recognised >= engine.maxPages || remaining <= 0) {
      reason ||= remaining <= 0 ? 'the OCR time limit was reached' : `OCR reads at most ${engine.maxPages} pages or images per document`;
      if (target.kind === 'page') left.push(target.page);
      continue;
    }
    const images = target.kind === 'page' ? await renderPage(parser, target) : await pageImages(parser, target);
    const texts: string[] = [];
    try {
      for (const png of images.slice(0, Math.max(0, engine.maxPages - recognised))) {
        recognised++;
        texts.push(ocrTsvToMarkdown(await engine.recognise(await eraseRules(png), Math.max(1000, deadline - Date.now()))));
      }
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      if (target.kind === 'page') failed.push(target.page);
      continue;
    }
    const text = joinBlocks(texts);
    if (target.kind === 'page') {
      read.push(target.page);
      outcome.pages.set(target.page, text);
    } else if (hasText(text)) {
      outcome.images.set(target.page, joinBlocks(['*Text in an image on this page, recognised by OCR:*', text]));
    }
  }
  outcome.note = describeNote(engine, read, left, failed, reason);
  return outcome;
}
