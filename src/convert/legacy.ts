// Legacy binary Office files (.doc, .ppt). With LibreOffice installed they are converted to
// .docx/.pptx and go through the OOXML converters, keeping headings, lists and tables. Without
// it, .doc falls back to word-extractor (plain text only) and .ppt cannot be converted.
import WordExtractor from 'word-extractor';
import { ConversionError } from '../errors.js';
import { docxToMarkdown } from './docx.js';
import { hasText, joinBlocks, plainTextToMarkdown } from './markdown.js';
import { DEFAULT_SOFFICE_TIMEOUT_MS, zipLimits } from './options.js';
import type { ConvertOptions } from './options.js';
import { pptxToMarkdown } from './pptx.js';
import { convertWithSoffice, findSoffice } from './soffice.js';
import { inspectZip } from './zip.js';

const PLAIN_TEXT_NOTE =
  '> Converted as plain text because LibreOffice is not available: headings, tables and formatting were not kept.';

/** .doc → Markdown as plain text with word-extractor (no LibreOffice needed). */
export async function docToPlainMarkdown(bytes: Buffer, label: string): Promise<string> {
  const document = await new WordExtractor().extract(bytes);
  const section = (title: string, text: string) =>
    hasText(text) ? joinBlocks([`## ${title}`, plainTextToMarkdown(text)]) : '';
  const body = plainTextToMarkdown(document.getBody());
  if (!hasText(body)) {
    throw new ConversionError(`${label} contains no text that could be extracted.`);
  }
  return joinBlocks([
    PLAIN_TEXT_NOTE,
    body,
    section('Footnotes', document.getFootnotes()),
    section('Endnotes', document.getEndnotes()),
  ]);
}

/** Converts a legacy .doc file to Markdown. */
export async function docToMarkdown(bytes: Buffer, label: string, options: ConvertOptions): Promise<string> {
  const soffice = findSoffice(options.soffice);
  if (!soffice) return docToPlainMarkdown(bytes, label);
  const timeout = options.sofficeTimeoutMs ?? DEFAULT_SOFFICE_TIMEOUT_MS;
  const docx = await convertWithSoffice(soffice, bytes, 'doc', 'docx', timeout, label);
  // LibreOffice's output is derived from a hostile file, so it gets the same zip checks.
  await inspectZip(docx, zipLimits(options), label);
  return docxToMarkdown(docx, label);
}

/** Converts a legacy .ppt file to Markdown; needs LibreOffice. */
export async function pptToMarkdown(bytes: Buffer, label: string, options: ConvertOptions): Promise<string> {
  const soffice = findSoffice(options.soffice);
  if (!soffice) {
    throw new ConversionError(
      `${label} was not converted: .ppt files need LibreOffice, which is not installed on this server.`,
    );
  }
  const timeout = options.sofficeTimeoutMs ?? DEFAULT_SOFFICE_TIMEOUT_MS;
  const pptx = await convertWithSoffice(soffice, bytes, 'ppt', 'pptx', timeout, label);
  await inspectZip(pptx, zipLimits(options), label);
  return pptxToMarkdown(pptx, label, zipLimits(options));
}
