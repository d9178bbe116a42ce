// Entry point of the converters: detect the real type, dispatch to its converter, and make every
// failure a ConversionError with a message that can be shown to the user. Runs in-process; use
// a sandbox (sandbox.ts) for untrusted uploads.
import { ConversionError } from '../errors.js';
import { detectDocument } from './detect.js';
import type { DocumentKind } from './detect.js';
import { hasText } from './markdown.js';
import { displayName } from './messages.js';
import { zipLimits } from './options.js';
import type { ConvertOptions } from './options.js';

/** File extensions (lower case, with the dot) that convertDocument accepts. */
export const CONVERTIBLE_EXTENSIONS = ['.pdf', '.ppt', '.pptx', '.xls', '.xlsx', '.doc', '.docx'] as const;

const KIND_NAMES: Record<DocumentKind, string> = {
  pdf: 'a PDF',
  docx: 'a Word document',
  doc: 'a Word 97-2003 document',
  xlsx: 'an Excel workbook',
  xls: 'an Excel 97-2003 workbook',
  pptx: 'a PowerPoint presentation',
  ppt: 'a PowerPoint 97-2003 presentation',
};

// Converters load lazily: a worker converting one PDF never loads SheetJS or LibreOffice glue.
async function dispatch(kind: DocumentKind, bytes: Buffer, label: string, options: ConvertOptions): Promise<string> {
  switch (kind) {
    case 'pdf':
      return (await import('./pdf.js')).pdfToMarkdown(bytes, label, options.ocr);
    case 'docx':
      return (await import('./docx.js')).docxToMarkdown(bytes, label);
    case 'xlsx':
    case 'xls':
      return (await import('./xlsx.js')).spreadsheetToMarkdown(bytes, label);
    case 'pptx':
      return (await import('./pptx.js')).pptxToMarkdown(bytes, label, zipLimits(options));
    case 'doc':
      return (await import('./legacy.js')).docToMarkdown(bytes, label, options);
    case 'ppt':
      return (await import('./legacy.js')).pptToMarkdown(bytes, label, options);
  }
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = message.split('\n', 1)[0]?.trim() ?? '';
  return firstLine.length > 300 ? `${firstLine.slice(0, 297)}...` : firstLine || 'unknown error';
}

/**
 * Converts a PDF or Office document to Markdown. The type is detected from the bytes, not the
 * file name. Throws ConversionError when the file is unsupported, corrupt, too big, or has no
 * text; a scanned PDF without a text layer is not an error (the Markdown says so).
 */
export async function convertDocument(bytes: Buffer, filename: string, options: ConvertOptions = {}): Promise<string> {
  const label = displayName(filename);
  const kind = await detectDocument(bytes, filename, zipLimits(options), label);
  let markdown: string;
  try {
    markdown = await dispatch(kind, bytes, label, options);
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    throw new ConversionError(`${label} could not be read as ${KIND_NAMES[kind]}: ${describe(err)}`, {
      cause: err,
    });
  }
  if (!hasText(markdown)) {
    throw new ConversionError(`${label} contains no text that could be extracted.`);
  }
  return markdown;
}
