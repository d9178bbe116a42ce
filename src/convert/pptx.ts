// .pptx → Markdown with officeparser's AST: per slide a `## Slide N` heading, the slide title as
// `###`, then its text, lists, tables, image alt text, chart data and speaker notes.
import { OfficeParser } from 'officeparser';
import type { OfficeAttachment, OfficeContentNode } from 'officeparser';
import { ConversionError } from '../errors.js';
import { escapeBlockStart, gfmTable, hasText, joinBlocks } from './markdown.js';
import type { ZipLimits } from './options.js';

type Charts = ReadonlyMap<string, OfficeAttachment>;

function nodeText(node: OfficeContentNode): string {
  if (typeof node.text === 'string') return node.text;
  return (node.children ?? []).map(nodeText).join('');
}

function inline(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * What LibreOffice writes into the slide-number, date, header and footer fields of the notes
 * pages and masters it exports (a .ppt converted through it carries them): field names, not text.
 */
const SOFFICE_FIELD = /^<(?:number|date\/time|header|footer|count|slide-name|page)>$/i;

function paragraph(text: string): string {
  return text
    .split(/\r\n|\r|\n|\v/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !SOFFICE_FIELD.test(line))
    .map((line, i) => escapeBlockStart(line, i === 0))
    .join('\n');
}

function tableRows(table: OfficeContentNode): string[][] {
  return (table.children ?? [])
    .filter((row) => row.type === 'row')
    .map((row) => (row.children ?? []).filter((c) => c.type === 'cell').map((cell) => nodeText(cell)));
}

function chartBlock(node: OfficeContentNode, charts: Charts): string {
  const name = node.type === 'chart' ? node.metadata?.attachmentName : undefined;
  const data = name ? charts.get(name)?.chartData : undefined;
  if (!data) return '[Chart]';
  const title = inline(data.title ?? '');
  const series = data.dataSets;
  const labels = data.labels ?? [];
  const length = Math.max(labels.length, ...series.map((s) => s.values.length));
  const rows: string[][] = [['Category', ...series.map((s, i) => inline(s.name ?? `Series ${i + 1}`))]];
  for (let i = 0; i < length; i++) {
    rows.push([labels[i] ?? '', ...series.map((s) => s.values[i] ?? '')]);
  }
  const heading = title ? `**Chart: ${title}**` : '**Chart**';
  return joinBlocks([heading, series.length > 0 ? gfmTable(rows) : '']);
}

/** Renders one content node (and what it holds) as Markdown blocks. */
function renderNode(node: OfficeContentNode, charts: Charts, headingDepth: number): string[] {
  switch (node.type) {
    case 'heading': {
      const text = inline(nodeText(node));
      const level = Math.min(6, headingDepth + Math.max(1, node.metadata?.level ?? 1) - 1);
      return text ? [`${'#'.repeat(level)} ${text}`] : [];
    }
    case 'list': {
      const depth = Math.max(0, node.metadata?.indentation ?? 0);
      const marker = node.metadata?.listType === 'ordered' ? `${(node.metadata.itemIndex ?? 0) + 1}.` : '-';
      const text = inline(nodeText(node));
      return text ? [`${'  '.repeat(depth)}${marker} ${text}`] : [];
    }
    case 'table':
      return [gfmTable(tableRows(node))];
    case 'image': {
      const alt = inline(node.metadata?.altText ?? '');
      return [alt ? `[Image: ${alt}]` : '[Image]'];
    }
    case 'chart':
      return [chartBlock(node, charts)];
    case 'paragraph':
    case 'text':
      return [paragraph(nodeText(node))];
    default:
      // Groups, drawings and anything newer: whatever text they hold, in order.
      if (node.children && node.children.length > 0) {
        return node.children.flatMap((child) => renderNode(child, charts, headingDepth));
      }
      return [paragraph(nodeText(node))];
  }
}

/** Consecutive list items stay together; every other block gets a blank line around it. */
function joinSlideBlocks(nodes: readonly OfficeContentNode[], charts: Charts, headingDepth: number): string {
  const parts: string[] = [];
  let previousWasList = false;
  for (const node of nodes) {
    const rendered = renderNode(node, charts, headingDepth)
      // Trim blank lines only: a nested list item's indent is part of the Markdown.
      .map((block) => block.replace(/^\s*\n|\s+$/g, ''))
      .filter((block) => block.trim().length > 0);
    if (rendered.length === 0) continue;
    const isList = node.type === 'list';
    parts.push((parts.length === 0 ? '' : isList && previousWasList ? '\n' : '\n\n') + rendered.join('\n\n'));
    previousWasList = isList;
  }
  return parts.join('');
}

function renderSlide(slide: OfficeContentNode, index: number, charts: Charts): string {
  const number = slide.type === 'slide' ? (slide.metadata?.slideNumber ?? index + 1) : index + 1;
  const notes = (slide.notes ?? []).flatMap((note) => note.children ?? [note]);
  const notesText = joinSlideBlocks(notes, charts, 5);
  return joinBlocks([
    `## Slide ${number}`,
    joinSlideBlocks(slide.children ?? [], charts, 3),
    notesText.trim() ? `### Notes\n\n${notesText}` : '',
  ]);
}

/** Converts a .pptx presentation to Markdown. */
export async function pptxToMarkdown(bytes: Buffer, label: string, limits: ZipLimits): Promise<string> {
  const ast = await OfficeParser.parseOffice(bytes, {
    fileType: 'pptx',
    // Needed for chart data; images come along as base64 but are never written out.
    extractAttachments: true,
    ocr: false,
    ignoreComments: true,
    ignoreSlideMasters: true,
    includeRawContent: false,
    decompressionLimits: { maxUncompressedBytes: limits.maxUncompressedBytes, maxZipEntries: limits.maxEntries },
    onWarning: () => {},
  });
  const charts: Charts = new Map(
    (ast.attachments ?? []).filter((a) => a.type === 'chart').map((a) => [a.name, a]),
  );
  const slides = ast.content.filter((node) => node.type === 'slide');
  const markdown = joinBlocks(slides.map((slide, i) => renderSlide(slide, i, charts)));
  // Slide headings and bare placeholders are structure, not text.
  const body = markdown.replace(/^## Slide \d+$/gm, '').replace(/\[(Image|Chart)\]/g, '');
  if (!hasText(body)) {
    throw new ConversionError(`${label} contains no slide text that could be extracted.`);
  }
  return markdown;
}
