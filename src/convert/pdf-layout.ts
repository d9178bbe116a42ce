// Rebuilds a page's text from pdf.js text items. PDFs draw text in any order; most draw it in
// reading order, but forms often draw headers last. Lines are rebuilt from item positions and
// sorted top to bottom, unless the page has text side by side (columns, two-part forms), where
// the drawing order is the better guess and is kept.

/** One pdf.js text item, in viewport coordinates (y grows downwards, at the baseline). */
export interface PositionedText {
  str: string;
  x: number;
  y: number;
  width: number;
  /** Font size, roughly; 0 for spacing items. */
  height: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

const DEFAULT_SIZE = 10;
const MAX_LINES_TO_REORDER = 3000;
const MIN_LINES_BESIDE = 4;

function sameLine(line: Line, item: PositionedText): boolean {
  const size = Math.max(line.size, item.height || line.size);
  // Half a font size keeps superscripts (footnote marks) on their line.
  return Math.abs(item.y - line.y) <= size * 0.5;
}

/** Groups items into lines in drawing order, inserting spaces where items are apart. */
export function buildLines(items: readonly PositionedText[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  const close = () => {
    if (current && current.text.trim().length > 0) lines.push({ ...current, text: current.text.trim() });
    current = null;
  };
  for (const item of items) {
    if (item.str.length > 0) {
      const line: Line | null = current;
      if (line && sameLine(line, item)) {
        const gap = item.x - line.x1;
        const size = item.height || line.size;
        if (gap > size * 0.15 && !/\s$/.test(line.text) && !/^\s/.test(item.str)) line.text += ' ';
        line.text += item.str;
        line.x0 = Math.min(line.x0, item.x);
        line.x1 = Math.max(line.x1, item.x + item.width);
        if (item.height > 0 && /\S/.test(item.str)) line.size = Math.max(line.size, item.height);
      } else {
        close();
        current = {
          text: item.str,
          x0: item.x,
          x1: item.x + item.width,
          y: item.y,
          size: item.height > 0 ? item.height : DEFAULT_SIZE,
        };
      }
    }
    if (item.hasEOL) close();
  }
  close();
  return lines;
}

/**
 * True when several lines sit beside another line (same row, disjoint columns): columns or a
 * two-part form, drawn one part after the other. A pair or so is just a header or a label.
 */
function hasSideBySideText(lines: readonly Line[]): boolean {
  const beside = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    const a = lines[i];
    if (!a) continue;
    for (let j = i + 1; j < lines.length; j++) {
      const b = lines[j];
      if (!b) continue;
      const rowsOverlap = Math.abs(a.y - b.y) < Math.max(a.size, b.size) * 0.5;
      const columnsApart = a.x1 < b.x0 || b.x1 < a.x0;
      if (rowsOverlap && columnsApart) {
        beside.add(i);
        beside.add(j);
      }
    }
  }
  return beside.size >= MIN_LINES_BESIDE;
}

/** Orders lines top to bottom (left to right within a row) unless the page has columns. */
export function orderLines(lines: readonly Line[]): Line[] {
  if (lines.length < 2 || lines.length > MAX_LINES_TO_REORDER || hasSideBySideText(lines)) return [...lines];
  return lines
    .map((line, index) => ({ line, index }))
    .sort((a, b) => {
      const rowGap = a.line.y - b.line.y;
      if (Math.abs(rowGap) >= Math.max(a.line.size, b.line.size) * 0.5) return rowGap;
      return a.line.x0 - b.line.x0 || a.index - b.index;
    })
    .map(({ line }) => line);
}

/** The page's text, one line per text line, in reading order. */
export function layoutText(items: readonly PositionedText[]): string {
  return orderLines(buildLines(items))
    .map((line) => line.text)
    .join('\n');
}
