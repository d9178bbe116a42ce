// Reading order and tables for OCR'd pages, from Tesseract's TSV word boxes. Tesseract's own
// order follows its blocks, which on a two-column page can interleave the columns and which puts
// each cell of a table in a block of its own. Here the page's columns are found from the gaps
// between wide lines of prose, read one after the other (a line spanning them, a title, reads
// in place), and the lines of each column become pdf-layout lines, so table rows merge and
// pdf-tables.ts rebuilds tables (ruled or not) from where the words sit.
import { escapeBlockStart, gfmTable, hasText, joinBlocks } from './markdown.js';
import { orderLines } from './pdf-layout.js';
import type { Line, Segment } from './pdf-layout.js';
import { findTables } from './pdf-tables.js';
import { runningLines } from './running-lines.js';

interface Word {
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface OcrLine {
  /** Tesseract's block and paragraph: lines of one paragraph share it. */
  paragraph: string;
  words: Word[];
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

/** Words that are only rule strokes: the lines of a ruled table read as characters. */
const STROKE = /^[|[\]_—–=\-:;.,'"`!]+$/;

/** Tesseract's TSV (level 5 rows are words) as lines, in Tesseract's order. */
export function parseTsv(tsv: string): OcrLine[] {
  const lines = new Map<string, OcrLine>();
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const [, , block, par, line, , left, top, width, height, conf] = cols.map(Number);
    const text = (cols[11] ?? '').trim();
    if (!text || STROKE.test(text) || Number(conf) < 0) continue;
    const key = `${block}.${par}.${line}`;
    const word = { text, left: Number(left), top: Number(top), width: Number(width), height: Number(height) };
    const entry = lines.get(key) ?? { paragraph: `${block}.${par}`, words: [], x0: Infinity, x1: -Infinity, top: Infinity, bottom: -Infinity };
    entry.words.push(word);
    entry.x0 = Math.min(entry.x0, word.left);
    entry.x1 = Math.max(entry.x1, word.left + word.width);
    entry.top = Math.min(entry.top, word.top);
    entry.bottom = Math.max(entry.bottom, word.top + word.height);
    lines.set(key, entry);
  }
  return [...lines.values()];
}

/** Lines side by side it takes to call a page set in columns (two rows of two). */
const MIN_LINES_BESIDE = 4;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * The x positions of the gutters between the page's columns: gaps in the x coverage of its wide
 * lines (a quarter of the text's width or more) with wide lines on both sides at the same height.
 * Narrow lines side by side are table cells, which read row by row.
 */
function gutters(lines: readonly OcrLine[]): number[] {
  if (lines.length === 0) return [];
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const wide = lines.filter((l) => l.x1 - l.x0 >= (right - left) / 4);
  const height = median(lines.map((l) => l.bottom - l.top));
  // Only lines with another beside them show the columns: a title spans them.
  const paired = wide.filter((a) => wide.some((b) => b !== a && (a.x1 < b.x0 || b.x1 < a.x0) && a.top < b.bottom && b.top < a.bottom));
  if (paired.length < MIN_LINES_BESIDE) return [];
  const spans = [...paired].sort((a, b) => a.x0 - b.x0);
  const found: number[] = [];
  let reach = spans[0]?.x1 ?? 0;
  for (const line of spans.slice(1)) {
    if (line.x0 - reach >= height) found.push((reach + line.x0) / 2);
    reach = Math.max(reach, line.x1);
  }
  return found;
}

/**
 * Tesseract can read a row of two columns as one line with a wide gap in it: a line is cut at
 * gaps wider than twice its height, so each column's part is a line of its own.
 */
function splitAtGutters(lines: readonly OcrLine[]): OcrLine[] {
  return lines.flatMap((line) => {
    const height = line.bottom - line.top;
    const words = [...line.words].sort((a, b) => a.left - b.left);
    const parts: Word[][] = [];
    for (const word of words) {
      const part = parts.at(-1);
      const last = part?.at(-1);
      if (part && last && word.left - (last.left + last.width) <= height * 2) part.push(word);
      else parts.push([word]);
    }
    if (parts.length < 2) return [line];
    return parts.map((part, i) => ({
      paragraph: `${line.paragraph}/${i}`,
      words: part,
      x0: Math.min(...part.map((w) => w.left)),
      x1: Math.max(...part.map((w) => w.left + w.width)),
      top: Math.min(...part.map((w) => w.top)),
      bottom: Math.max(...part.map((w) => w.top + w.height)),
    }));
  });
}

/** Lines at the same height, top to bottom. */
function rowsOf(lines: readonly OcrLine[]): OcrLine[][] {
  const rows: OcrLine[][] = [];
  for (const line of [...lines].sort((a, b) => a.top - b.top)) {
    const row = rows.at(-1);
    const first = row?.[0];
    const centre = (line.top + line.bottom) / 2;
    if (row && first && centre > first.top && centre < first.bottom) row.push(line);
    else rows.push([line]);
  }
  return rows;
}

/**
 * Lines in reading order: column by column between the rows that do not follow the columns (a
 * title across the page, a table row whose cells straddle the gutter), which read in place.
 */
function readingOrder(input: readonly OcrLine[]): OcrLine[][] {
  const lines = splitAtGutters(input);
  const cuts = gutters(lines);
  if (cuts.length === 0) return [[...lines].sort((a, b) => a.top - b.top)];
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const column = (l: OcrLine): number => {
    if (cuts.some((x) => l.x0 < x && l.x1 > x)) return -1;
    const c = cuts.findIndex((x) => l.x1 < x);
    return c === -1 ? cuts.length : c;
  };
  const sections: OcrLine[][] = [];
  let band: OcrLine[][] = [];
  // Rows read in place, one after the other, are one section: a table's rows stay together.
  let inPlace: OcrLine[] = [];
  const flush = () => {
    for (const col of band) if (col && col.length > 0) sections.push(col);
    if (inPlace.length > 0) sections.push(inPlace);
    band = [];
    inPlace = [];
  };
  for (const row of rowsOf(lines)) {
    const columns = row.map(column);
    const used = new Set(columns);
    const prose = row.some((l) => l.x1 - l.x0 >= (right - left) / 4);
    if (used.has(-1) || (used.size > 1 && !prose)) {
      if (band.length > 0) flush();
      inPlace.push(...row);
      continue;
    }
    if (inPlace.length > 0) flush();
    row.forEach((line, i) => {
      const c = columns[i] ?? 0;
      (band[c] ??= []).push(line);
    });
  }
  flush();
  return sections;
}

/** A Tesseract line as a pdf-layout line: words closer than a line height form one segment. */
function toLayoutLine(line: OcrLine): Line {
  const size = Math.max(1, line.bottom - line.top);
  const segments: Segment[] = [];
  for (const word of [...line.words].sort((a, b) => a.left - b.left)) {
    const last = segments.at(-1);
    if (last && word.left - last.x1 <= size) {
      last.text += ` ${word.text}`;
      last.x1 = word.left + word.width;
    } else {
      segments.push({ text: word.text, x0: word.left, x1: word.left + word.width });
    }
  }
  return { text: segments.map((s) => s.text).join(' '), x0: line.x0, x1: line.x1, y: line.bottom, size, bold: false, segments };
}

/** One OCR paragraph: long lines are prose that wraps (joined, hyphenation undone); short ones keep their breaks. */
export function ocrParagraph(lines: readonly string[]): string {
  const longest = Math.max(...lines.map((l) => l.length));
  let text = '';
  let previous = '';
  for (const line of lines) {
    if (text === '') text = line;
    else if (previous.length < longest * 0.7) text += `\n${line}`;
    else if (/\p{L}-$/u.test(text.slice(-4)) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text += ` ${line}`;
    previous = line;
  }
  return text
    .split('\n')
    .map((line, i) => escapeBlockStart(line, i === 0))
    .join('\n');
}

/** One section's lines (a column, or a spanning line) as Markdown blocks: tables and paragraphs. */
function sectionBlocks(section: readonly OcrLine[]): string[] {
  const paragraphOf = new Map<Line, string>();
  const layout = section.map((l) => {
    const line = toLayoutLine(l);
    paragraphOf.set(line, l.paragraph);
    return line;
  });
  // Lines of one row (table cells Tesseract read as blocks of their own) merge, left to right.
  const rows = orderLines(layout);
  const tables = findTables(rows);
  const blocks: string[] = [];
  let paragraph: string[] = [];
  let key: string | undefined;
  let previous: Line | undefined;
  const flush = () => {
    if (paragraph.length > 0 && paragraph.some(hasText)) blocks.push(ocrParagraph(paragraph));
    paragraph = [];
  };
  for (let i = 0; i < rows.length; i++) {
    const table = tables.find((t) => t.start === i);
    if (table) {
      flush();
      blocks.push(gfmTable(table.rows));
      i = table.end - 1;
      previous = undefined;
      continue;
    }
    const line = rows[i];
    if (!line) continue;
    const lineKey = paragraphOf.get(line);
    const gap = previous ? line.y - previous.y : 0;
    if (previous && (lineKey !== key || gap > line.size * 2)) flush();
    paragraph.push(line.text);
    key = lineKey;
    previous = line;
  }
  flush();
  return blocks;
}

/** Tesseract's TSV for one image as Markdown: columns read in order, tables as pipe tables. */
export function ocrTsvToMarkdown(tsv: string): string {
  return joinBlocks(readingOrder(parseTsv(tsv)).flatMap(sectionBlocks));
}

/** One scanned page read by OCR: its lines, and its height in pixels. */
export interface OcrPage {
  number: number;
  height: number;
  lines: OcrLine[];
}

/** Tesseract's TSV of a page image as that page (its level-1 row gives the image's size). */
export function parseOcrPage(tsv: string, number: number): OcrPage {
  const lines = parseTsv(tsv);
  const pageRow = tsv.split('\n').find((row) => row.startsWith('1\t'));
  const height = Number(pageRow?.split('\t')[9]);
  return { number, height: height > 0 ? height : Math.max(0, ...lines.map((l) => l.bottom)), lines };
}

/**
 * OCR line boxes are as tall as their letters reach (a line of capitals and descenders is a third
 * taller than one of small letters), so a margin line is taken for content only when it is far
 * taller than the body's usual box.
 */
const OCR_CONTENT_SIZE = 1.6;

/** The words of an OCR line that fall inside the segments kept of it. */
function wordsWithin(line: OcrLine, kept: Line): OcrLine | null {
  const words = line.words.filter((w) => kept.segments.some((s) => w.left >= s.x0 - 1 && w.left + w.width <= s.x1 + 1));
  if (words.length === 0) return null;
  return { ...line, words, x0: Math.min(...words.map((w) => w.left)), x1: Math.max(...words.map((w) => w.left + w.width)) };
}

/**
 * Scanned pages read by OCR as Markdown, one string per page: running headers, footers and page
 * numbers dropped across the pages as on pages with text (running-lines.ts), then each page's
 * columns read in order and its tables rebuilt.
 */
export function ocrPagesToMarkdown(pages: readonly OcrPage[]): string[] {
  const layout = pages.map((page) => ({ number: page.number, height: page.height, lines: page.lines.map(toLayoutLine) }));
  const kept = runningLines(layout, { contentSize: OCR_CONTENT_SIZE });
  return pages.map((page, p) => {
    const lines = page.lines.flatMap((line, i) => {
      const keep = kept[p]?.[i];
      if (!keep) return [];
      if (keep === layout[p]?.lines[i]) return [line];
      return wordsWithin(line, keep) ?? [];
    });
    return joinBlocks(readingOrder(lines).flatMap(sectionBlocks));
  });
}
