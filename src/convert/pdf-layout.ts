// Rebuilds a page's lines from pdf.js text items. PDFs draw text in any order; most draw it in
// reading order, but forms often draw headers last. Lines are rebuilt from item positions and
// sorted top to bottom, unless the page has prose side by side (columns), where the drawing
// order is the better guess and is kept. Each line keeps its segments (runs of text separated
// by a wide gap), which is what borderless tables are rebuilt from (pdf-tables.ts).

/** One pdf.js text item, in viewport coordinates (y grows downwards, at the baseline). */
export interface PositionedText {
  str: string;
  x: number;
  y: number;
  width: number;
  /** Font size, roughly; 0 for spacing items. */
  height: number;
  hasEOL: boolean;
  /** Drawn in a bold (or heavier) font. */
  bold?: boolean;
}

/** A run of text on a line with no wide gap inside. */
export interface Segment {
  text: string;
  x0: number;
  x1: number;
}

export interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  /** The font size most of the line's characters have. */
  size: number;
  /** Every visible character is bold. */
  bold: boolean;
  segments: Segment[];
}

const DEFAULT_SIZE = 10;
const MAX_LINES_TO_REORDER = 3000;
const MIN_LINES_BESIDE = 4;
/** A gap wider than this many font sizes starts a new segment (a table cell, a form field). */
const SEGMENT_GAP = 1;
/** A gap wider than this many font sizes is a word space. */
const WORD_GAP = 0.15;

interface LineDraft {
  segments: Segment[];
  y: number;
  /** Right end of the last visible item. */
  end: number;
  /** A whitespace item came after the last visible item. */
  spaced: boolean;
  sizes: Map<number, number>;
  chars: number;
  boldChars: number;
}

function sameLine(line: LineDraft, item: PositionedText): boolean {
  const size = Math.max(dominantSize(line.sizes), item.height || 0);
  // Half a font size keeps superscripts (footnote marks) on their line.
  return Math.abs(item.y - line.y) <= size * 0.5;
}

function dominantSize(sizes: Map<number, number>): number {
  let best = DEFAULT_SIZE;
  let count = 0;
  for (const [size, n] of sizes) {
    if (n > count) [best, count] = [size, n];
  }
  return best;
}

function finishLine(draft: LineDraft): Line {
  const segments = draft.segments.map((s) => ({ ...s, text: s.text.trim() })).filter((s) => s.text.length > 0);
  return {
    text: segments.map((s) => s.text).join(' '),
    x0: Math.min(...segments.map((s) => s.x0)),
    x1: Math.max(...segments.map((s) => s.x1)),
    y: draft.y,
    size: dominantSize(draft.sizes),
    bold: draft.chars > 0 && draft.boldChars === draft.chars,
    segments,
  };
}

function addItem(line: LineDraft, item: PositionedText): void {
  const size = item.height || dominantSize(line.sizes);
  const gap = item.x - line.end;
  const last = line.segments.at(-1);
  if (!last || gap > size * SEGMENT_GAP) {
    line.segments.push({ text: item.str, x0: item.x, x1: item.x + item.width });
  } else {
    const space = (gap > size * WORD_GAP || line.spaced) && !/\s$/.test(last.text) && !/^\s/.test(item.str);
    last.text += (space ? ' ' : '') + item.str;
    last.x1 = Math.max(last.x1, item.x + item.width);
  }
  line.end = Math.max(line.end, item.x + item.width);
  line.spaced = false;
  const chars = item.str.replace(/\s/g, '').length;
  const rounded = Math.round(item.height * 2) / 2;
  if (rounded > 0) line.sizes.set(rounded, (line.sizes.get(rounded) ?? 0) + chars);
  line.chars += chars;
  if (item.bold) line.boldChars += chars;
}

/** Groups items into lines in drawing order, splitting each line into segments at wide gaps. */
export function buildLines(items: readonly PositionedText[]): Line[] {
  const lines: Line[] = [];
  let current: LineDraft | null = null;
  const close = () => {
    if (current && current.chars > 0) lines.push(finishLine(current));
    current = null;
  };
  for (const item of items) {
    if (item.str.length > 0) {
      const line: LineDraft | null = current;
      if (/^\s+$/.test(item.str)) {
        // Spacing items only say that a space separates what comes next on this line.
        if (line) line.spaced = true;
      } else if (line && sameLine(line, item)) {
        addItem(line, item);
      } else {
        close();
        const draft: LineDraft = { segments: [], y: item.y, end: -Infinity, spaced: false, sizes: new Map(), chars: 0, boldChars: 0 };
        addItem(draft, item);
        current = draft;
      }
    }
    if (item.hasEOL) close();
  }
  close();
  return lines;
}

/**
 * True when several lines of prose sit beside another (same row, disjoint columns, each wider
 * than a quarter of the text area): a page set in columns, drawn one column after the other.
 * Narrow lines side by side are table cells or form fields, which read row by row.
 */
function hasColumns(lines: readonly Line[]): boolean {
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const minWidth = (right - left) / 4;
  const wide = lines.filter((l) => l.x1 - l.x0 >= minWidth);
  const beside = new Set<Line>();
  for (let i = 0; i < wide.length; i++) {
    const a = wide[i];
    if (!a) continue;
    for (let j = i + 1; j < wide.length; j++) {
      const b = wide[j];
      if (!b) continue;
      const rowsOverlap = Math.abs(a.y - b.y) < Math.max(a.size, b.size) * 0.5;
      if (rowsOverlap && (a.x1 < b.x0 || b.x1 < a.x0)) {
        beside.add(a);
        beside.add(b);
      }
    }
  }
  return beside.size >= MIN_LINES_BESIDE;
}

function sameRow(a: Line, b: Line): boolean {
  return Math.abs(a.y - b.y) < Math.max(a.size, b.size) * 0.5;
}

/** One line from lines on the same row, left to right. */
function mergeRow(row: readonly Line[]): Line {
  if (row.length === 1 && row[0]) return row[0];
  const segments = row.flatMap((l) => l.segments).sort((a, b) => a.x0 - b.x0);
  const widest = row.reduce((best, l) => (l.text.length > best.text.length ? l : best));
  return {
    text: segments.map((s) => s.text).join(' '),
    x0: Math.min(...row.map((l) => l.x0)),
    x1: Math.max(...row.map((l) => l.x1)),
    y: widest.y,
    size: widest.size,
    bold: row.every((l) => l.bold),
    segments,
  };
}

/**
 * Orders lines top to bottom, merging lines of one row into one line (cells drawn one by one),
 * unless the page is set in columns, whose drawing order is kept.
 */
export function orderLines(lines: readonly Line[]): Line[] {
  if (lines.length < 2 || lines.length > MAX_LINES_TO_REORDER || hasColumns(lines)) return [...lines];
  const sorted = lines
    .map((line, index) => ({ line, index }))
    .sort((a, b) => {
      if (!sameRow(a.line, b.line)) return a.line.y - b.line.y;
      return a.line.x0 - b.line.x0 || a.index - b.index;
    })
    .map(({ line }) => line);
  const merged: Line[] = [];
  let row: Line[] = [];
  for (const line of sorted) {
    const first = row[0];
    if (first && !sameRow(first, line)) {
      merged.push(mergeRow(row));
      row = [];
    }
    row.push(line);
  }
  if (row.length > 0) merged.push(mergeRow(row));
  return merged;
}

/** The page's lines in reading order. */
export function layoutLines(items: readonly PositionedText[]): Line[] {
  return orderLines(buildLines(items));
}

/** The page's text, one line per text line, in reading order. */
export function layoutText(items: readonly PositionedText[]): string {
  return layoutLines(items)
    .map((line) => line.text)
    .join('\n');
}
