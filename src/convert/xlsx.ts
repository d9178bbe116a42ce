// .xlsx and .xls → Markdown with SheetJS: one `## <sheet name>` heading and one GFM pipe table
// per sheet, cells as displayed (formatted values, not formulas).
import * as XLSX from '@e965/xlsx';
import * as cptable from '@e965/xlsx/dist/cpexcel.full.mjs';
import { ConversionError } from '../errors.js';
import { gfmTable, hasText, joinBlocks } from './markdown.js';

// Legacy .xls files store text in Windows code pages; the ESM build needs the tables handed in.
XLSX.set_cptable(cptable);

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** The sheet's rows as text, with fully empty rows and columns removed. */
function sheetRows(sheet: XLSX.WorkSheet): string[][] {
  const raw = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, defval: '', blankrows: false });
  const rows = raw.map((row) => (Array.isArray(row) ? row.map((v) => cellText(v).trim()) : []));
  const width = rows.reduce((max, row) => Math.max(max, row.length), 0);
  const usedColumns = Array.from({ length: width }, (_, c) => c).filter((c) => rows.some((row) => (row[c] ?? '') !== ''));
  return rows
    .map((row) => usedColumns.map((c) => row[c] ?? ''))
    .filter((row) => row.some((cell) => cell !== ''));
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
    const rows = sheet ? sheetRows(sheet) : [];
    if (rows.some((row) => row.some(hasText))) anyText = true;
    const table = rows.length > 0 ? gfmTable(rows) : '*(empty sheet)*';
    return joinBlocks([`## ${name.replace(/\s+/g, ' ')}`, hiddenState(workbook, index), table]);
  });
  // Sheet names alone are content: the workbook converts, saying it holds no values.
  const note = anyText ? '' : '> This workbook has no cell values: only its sheet names are shown.';
  return joinBlocks([note, ...blocks]);
}
