// Running headers, footers and page numbers: what a page's margins repeat from page to page, and
// what a browser or word processor prints there. One piece of code for the lines of text PDFs
// (pdf-structure.ts) and of scanned pages read by OCR (ocr-layout.ts): both are pdf-layout lines
// on pages of a known height, in points or in pixels alike.
import type { Line } from './pdf-layout.js';

export interface PageLines {
  /** 1-based. */
  number: number;
  height: number;
  lines: Line[];
}

/** Lines this close to the top or bottom of a page can be running headers and footers. */
const MARGIN_SHARE = 0.1;
const PAGE_NUMBER = /^(?:page\s+\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?|[-–—]?\s*\d{1,4}\s*[-–—]?|\d{1,4}\s*(?:of|\/)\s*\d{1,4}|[ivxlc]{1,7})$/i;

/**
 * What a browser or word processor prints in a page's margins: a page counter ("1 of 3", "2/5",
 * "Page 4"), a date and time, the page's URL, the file's name. Matched one segment at a time.
 */
const PRINT_FURNITURE = [
  /^(?:page\s+)?\d{1,4}\s*(?:of|\/)\s*\d{1,4}$/i,
  /^page\s+\d{1,4}$/i,
  /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?)?$/i,
  /^\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?$/i,
  /^(?:(?:https?|file|ftp):\/\/|www\.)\S+$/i,
  /^[^\s/\\]+(?:\s[^\s/\\]+){0,3}\.(?:pdf|html?|docx?|xlsx?|pptx?|odt|txt|md|rtf)$/i,
];

export interface RunningLineOptions {
  /**
   * A margin line this many times the body size or larger is content, however it reads (a big
   * "1/2" is not a page counter). 1.1 for fonts; OCR line boxes vary with ascenders and
   * descenders, so they need more room.
   */
  contentSize?: number;
}

function isFurniture(text: string): boolean {
  return PRINT_FURNITURE.some((pattern) => pattern.test(text.trim()));
}

/** The font size most characters have, and whether most of them are bold. */
export function bodyStyle(pages: readonly PageLines[]): { size: number; bold: boolean } {
  const chars = new Map<number, number>();
  let bold = 0;
  let total = 0;
  for (const line of pages.flatMap((p) => p.lines)) {
    const n = line.text.length;
    chars.set(line.size, (chars.get(line.size) ?? 0) + n);
    total += n;
    if (line.bold) bold += n;
  }
  let size = 10;
  let best = 0;
  for (const [s, n] of chars) if (n > best) [size, best] = [s, n];
  return { size, bold: bold > total / 2 };
}

/** The line without its print furniture; null when nothing else is on it. */
function withoutFurniture(line: Line, bodySize: number, contentSize: number): Line | null {
  // Furniture is printed small; a large "1/2" in the margin is content.
  if (line.size > bodySize * contentSize) return line;
  const segments = line.segments.filter((s) => !isFurniture(s.text));
  if (segments.length === line.segments.length) return isFurniture(line.text) ? null : line;
  if (segments.length === 0) return null;
  return {
    ...line,
    text: segments.map((s) => s.text).join(' '),
    x0: Math.min(...segments.map((s) => s.x0)),
    x1: Math.max(...segments.map((s) => s.x1)),
    segments,
  };
}

function marginKey(line: Line): string {
  return line.text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
}

function inMargin(line: Line, height: number): boolean {
  return line.y < height * MARGIN_SHARE || line.y > height * (1 - MARGIN_SHARE);
}

/**
 * Page by page and line by line, what stays of each line: null for a page number, print
 * furniture, or the repeat of a line that recurs in the top or bottom margin of at least half the
 * pages (the first one stays: a letterhead is content once); the line itself, or a copy without
 * its furniture segments. Aligned with the input, so a caller can map back to its own lines.
 */
export function runningLines(input: readonly PageLines[], options: RunningLineOptions = {}): (Line | null)[][] {
  const bodySize = bodyStyle(input).size;
  const contentSize = options.contentSize ?? 1.1;
  const kept = input.map((page) =>
    page.lines.map((line) => (inMargin(line, page.height) ? withoutFurniture(line, bodySize, contentSize) : line)),
  );
  const multi = input.length >= 2;
  const pagesWith = new Map<string, number>();
  kept.forEach((lines, p) => {
    const height = input[p]?.height ?? 0;
    const keys = new Set(lines.filter((l): l is Line => l !== null && inMargin(l, height)).map(marginKey));
    for (const key of keys) pagesWith.set(key, (pagesWith.get(key) ?? 0) + 1);
  });
  const threshold = Math.max(2, Math.ceil(input.length / 2));
  const seen = new Set<string>();
  return kept.map((lines, p) => {
    const height = input[p]?.height ?? 0;
    return lines.map((line) => {
      if (!line || !inMargin(line, height)) return line;
      const pageNumber = PAGE_NUMBER.test(line.text.trim());
      if (pageNumber && (multi || /page/i.test(line.text))) return null;
      const key = marginKey(line);
      if (!multi || (pagesWith.get(key) ?? 0) < threshold) return line;
      if (seen.has(key)) return null;
      seen.add(key);
      return line;
    });
  });
}

/** The pages without their running lines (see runningLines). */
export function dropRunningLines(input: readonly PageLines[], options: RunningLineOptions = {}): PageLines[] {
  const kept = runningLines(input, options);
  return input.map((page, p) => ({ ...page, lines: (kept[p] ?? []).filter((l): l is Line => l !== null) }));
}
