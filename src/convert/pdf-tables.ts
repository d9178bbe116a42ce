// Rebuilds tables from text positions, ruled or not: a run of consecutive lines that each split
// into two or more segments at wide gaps, whose segments line up in columns. Columns are the
// x-ranges where segments of the run overlap; a row's segment goes to the column it sits in, so
// a row with empty cells (a sparse table) keeps its values under the right headers. A line of
// one segment right under a row, inside a later column, is that cell wrapping onto a new line.
import type { Line, Segment } from './pdf-layout.js';

export interface FoundTable {
  /** Index of the table's first line. */
  start: number;
  /** Index after its last line. */
  end: number;
  rows: string[][];
}

/** Rows further apart than this many font sizes are not one table. */
const MAX_ROW_GAP = 3;
/** A wrapped cell line sits at most this many font sizes under its row. */
const MAX_WRAP_GAP = 1.6;

interface Column {
  x0: number;
  x1: number;
}

function mergeIntervals(segments: readonly Segment[]): Column[] {
  const columns: Column[] = [];
  for (const s of [...segments].sort((a, b) => a.x0 - b.x0)) {
    const last = columns.at(-1);
    if (last && s.x0 <= last.x1) last.x1 = Math.max(last.x1, s.x1);
    else columns.push({ x0: s.x0, x1: s.x1 });
  }
  return columns;
}

/**
 * Columns come from the fullest rows, so a header spanning two columns does not merge them;
 * a segment of another row that overlaps none of them adds a column of its own.
 */
function columnsOf(rows: readonly Line[]): Column[] {
  const most = Math.max(...rows.map((r) => r.segments.length));
  const base = mergeIntervals(rows.filter((r) => r.segments.length === most).flatMap((r) => r.segments));
  const overlaps = (s: Segment) => base.some((c) => s.x0 <= c.x1 && s.x1 >= c.x0);
  const extra = mergeIntervals(rows.flatMap((r) => r.segments).filter((s) => !overlaps(s)));
  return [...base, ...extra].sort((a, b) => a.x0 - b.x0);
}

function columnOf(columns: readonly Column[], s: Segment): number {
  // The column it overlaps most; one it overlaps none of, by where its centre falls.
  const overlap = columns.map((c) => Math.min(c.x1, s.x1) - Math.max(c.x0, s.x0));
  const most = Math.max(...overlap);
  if (most > 0) return overlap.indexOf(most);
  const centre = (s.x0 + s.x1) / 2;
  let best = 0;
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c];
    if (col && col.x0 <= centre + 1) best = c;
  }
  return best;
}

function isRowCandidate(line: Line): boolean {
  return line.segments.length >= 2;
}

/** The lines from `start` that could be one table: multi-segment rows and their wrapped cells. */
function runFrom(lines: readonly Line[], start: number): { rows: Line[]; wraps: Map<Line, Line>; end: number } {
  const first = lines[start];
  if (!first) return { rows: [], wraps: new Map(), end: start };
  const rows: Line[] = [first];
  const wraps = new Map<Line, Line>();
  let previous = first;
  let end = start + 1;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line) break;
    const gap = line.y - previous.y;
    if (gap <= 0 || gap > Math.max(line.size, previous.size) * MAX_ROW_GAP) break;
    if (isRowCandidate(line)) {
      rows.push(line);
    } else {
      // One segment: a cell wrapping onto its own line, under a later column of the row above.
      const row = rows.at(-1) ?? first;
      const indented = line.x0 > Math.min(...rows.map((r) => r.x0)) + line.size;
      if (!indented || gap > Math.max(line.size, previous.size) * MAX_WRAP_GAP) break;
      wraps.set(line, row);
    }
    previous = line;
    end = i + 1;
  }
  return { rows, wraps, end };
}

function buildRows(rows: readonly Line[], wraps: ReadonlyMap<Line, Line>, columns: readonly Column[]): string[][] {
  const cells = new Map<Line, string[]>();
  for (const row of rows) {
    const cellsOfRow = columns.map(() => '');
    for (const s of row.segments) {
      const c = columnOf(columns, s);
      cellsOfRow[c] = cellsOfRow[c] ? `${cellsOfRow[c]} ${s.text}` : s.text;
    }
    cells.set(row, cellsOfRow);
  }
  for (const [wrap, row] of wraps) {
    const target = cells.get(row);
    if (!target) continue;
    for (const s of wrap.segments) {
      const c = columnOf(columns, s);
      target[c] = target[c] ? `${target[c]} ${s.text}` : s.text;
    }
  }
  const table = rows.map((row) => cells.get(row) ?? []);
  const used = columns.map((_, c) => table.some((r) => (r[c] ?? '') !== ''));
  return table.map((r) => r.filter((_, c) => used[c]));
}

/** True when the rows spread over the columns like a table, not like a stray wide gap. */
function looksTabular(rows: readonly string[][]): boolean {
  const width = rows[0]?.length ?? 0;
  if (rows.length < 2 || width < 2) return false;
  // Labels and their values ("Order Type:  Premium Package") read better as the lines they are.
  if (width === 2 && rows.every((r) => (r[0] ?? '') === '' || (r[0] ?? '').endsWith(':'))) return false;
  // At least two rows fill two or more cells.
  return rows.filter((r) => r.filter((cell) => cell !== '').length >= 2).length >= 2;
}

/** The tables among a page's lines (in reading order), as non-overlapping line ranges. */
export function findTables(lines: readonly Line[]): FoundTable[] {
  const tables: FoundTable[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line || !isRowCandidate(line)) {
      i++;
      continue;
    }
    const { rows, wraps, end } = runFrom(lines, i);
    const columns = columnsOf(rows);
    const table = buildRows(rows, wraps, columns);
    if (rows.length >= 2 && columns.length >= 2 && looksTabular(table)) {
      tables.push({ start: i, end, rows: table });
      i = end;
    } else {
      i++;
    }
  }
  return tables;
}
