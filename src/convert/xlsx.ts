// .xlsx and .xls → Markdown with SheetJS: one `## <sheet name>` heading and one GFM pipe table
// per sheet, cells as displayed (formatted values, not formulas).
import * as XLSX from '@e965/xlsx';
import * as cptable from '@e965/xlsx/dist/cpexcel.full.mjs';
import { ConversionError } from '../errors.js';
import { escapeLineStart, gfmTable, hasText, joinBlocks } from './markdown.js';

// Legacy .xls files store text in Windows code pages; the ESM build needs the tables handed in.
XLSX.set_cptable(cptable);

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

interface SheetTable {
  /** Merged cells spanning the table's width above it: a title, a subtitle. */
  titles: string[];
  rows: string[][];
}

/** True when a merged range starts at this cell and spans every used column. */
function spansWidth(merges: readonly XLSX.Range[], row: number, column: number, used: readonly number[]): boolean {
  const [first, last] = [used[0] ?? 0, used.at(-1) ?? 0];
  return merges.some((m) => m.s.r === row && m.s.c === column && m.s.c <= first && m.e.c >= last && last > first);
}

/**
 * The sheet's rows as text, with fully empty rows and columns removed. Rows above the table
 * whose one value sits in a merged cell spanning its width are titles, not its header row.
 */
function sheetTable(sheet: XLSX.WorkSheet): SheetTable {
  const raw = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, defval: '', blankrows: true });
  const origin = sheet['!ref'] ? XLSX.utils.decode_range(sheet['!ref']).s : { r: 0, c: 0 };
  const all = raw.map((row, i) => ({ at: origin.r + i, cells: Array.isArray(row) ? row.map((v) => cellText(v).trim()) : [] }));
  const filled = all.filter((row) => row.cells.some((cell) => cell !== ''));
  const width = filled.reduce((max, row) => Math.max(max, row.cells.length), 0);
  const used = Array.from({ length: width }, (_, c) => c).filter((c) => filled.some((row) => (row.cells[c] ?? '') !== ''));
  const merges = sheet['!merges'] ?? [];
  const titles: string[] = [];
  // A title needs a table under it: a header row and at least one more.
  while (filled.length > 2) {
    const top = filled[0];
    const values = top ? used.filter((c) => (top.cells[c] ?? '') !== '') : [];
    const column = values[0];
    if (!top || values.length !== 1 || column === undefined || !spansWidth(merges, top.at, origin.c + column, used.map((c) => origin.c + c))) break;
    titles.push((top.cells[column] ?? '').replace(/\s+/g, ' '));
    filled.shift();
  }
  return { titles, rows: filled.map((row) => used.map((c) => row.cells[c] ?? '')) };
}

function hiddenState(workbook: XLSX.WorkBook, index: number): string {
  const hidden = workbook.Workbook?.Sheets?.[index]?.Hidden;
  return hidden === 1 || hidden === 2 ? '*(hidden sheet)*' : '';
}

/** Converts an .xlsx (or .xlsm/.xlsb) or legacy .xls workbook to Markdown. */
export function spreadsheetToMarkdown(bytes: Buffer, label: string): string {
  const workbook = XLSX.read(bytes, {
    type: 'buffer',
    dense: true,
    cellFormula: false,
    cellHTML: false,
    cellStyles: false,
    bookVBA: false,
    WTF: false,
  });
  if (workbook.SheetNames.length === 0) {
    throw new ConversionError(`${label} has no worksheets.`);
  }
  let anyText = false;
  const blocks = workbook.SheetNames.map((name, index) => {
    const sheet = workbook.Sheets[name];
    const { titles, rows } = sheet ? sheetTable(sheet) : { titles: [], rows: [] };
    if (titles.length > 0 || rows.some((row) => row.some(hasText))) anyText = true;
    const table = rows.length > 0 ? gfmTable(rows) : '*(empty sheet)*';
    const [title, ...subtitles] = titles;
    return joinBlocks([
      `## ${name.replace(/\s+/g, ' ')}`,
      hiddenState(workbook, index),
      title ? `### ${escapeLineStart(title)}` : '',
      ...subtitles.map(escapeLineStart),
      table,
    ]);
  });
  // Sheet names alone are content: the workbook converts, saying it holds no values.
  const note = anyText ? '' : '> This workbook has no cell values: only its sheet names are shown.';
  return joinBlocks([note, ...blocks]);
}
