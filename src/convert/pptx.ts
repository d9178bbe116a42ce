// .pptx → Markdown with officeparser's AST: per slide a `## Slide N` heading, the slide title as
// `###`, then its text, lists, tables, image alt text, chart data and speaker notes. Numbered
// lists get their numbers from pptx-numbering.ts, which resolves what the slide layout and master
// give a paragraph (officeparser sees only the paragraph's own numbering, and not its start).
import { OfficeParser } from 'officeparser';
import type { OfficeAttachment, OfficeContentNode } from 'officeparser';
import { ConversionError } from '../errors.js';
import { escapeBlockStart, gfmTable, hasText, joinBlocks } from './markdown.js';
import type { ZipLimits } from './options.js';
import { isNumberingPart, slideNumbering } from './pptx-numbering.js';
import type { SlideParagraph } from './pptx-numbering.js';
import { readZipParts } from './zip-parts.js';

type Charts = ReadonlyMap<string, OfficeAttachment>;

/** A paragraph PowerPoint numbers: its label and level. */
interface NumberedItem {
  label: string;
  level: number;
}

interface RenderContext {
  charts: Charts;
  numbered: ReadonlyMap<OfficeContentNode, NumberedItem>;
}

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

/** A list item's marker: Markdown's own for `1.` and `1)`, else a bullet that shows the label. */
function itemMarker(label: string): string {
  return /^\d{1,9}[.)]$/.test(label) ? label : `- ${label}`;
}

/** Renders one content node (and what it holds) as Markdown blocks; list items come unindented. */
function renderNode(node: OfficeContentNode, ctx: RenderContext, headingDepth: number): string[] {
  const numbered = ctx.numbered.get(node);
  if (numbered) {
    const text = inline(nodeText(node));
    return text ? [`${itemMarker(numbered.label)} ${text}`] : [];
  }
  const { charts } = ctx;
  switch (node.type) {
    case 'heading': {
      const text = inline(nodeText(node));
      const level = Math.min(6, headingDepth + Math.max(1, node.metadata?.level ?? 1) - 1);
      return text ? [`${'#'.repeat(level)} ${text}`] : [];
    }
    case 'list': {
      const marker = node.metadata?.listType === 'ordered' ? `${(node.metadata.itemIndex ?? 0) + 1}.` : '-';
      const text = inline(nodeText(node));
      return text ? [`${marker} ${text}`] : [];
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
      return [paragraph(nodeText(node))];
  }
}

const RENDERED_WHOLE = new Set<string>(['heading', 'list', 'table', 'image', 'chart', 'paragraph', 'text']);

/** Groups, drawings and anything newer opened into what they hold, in order. */
function openGroups(nodes: readonly OfficeContentNode[]): OfficeContentNode[] {
  return nodes.flatMap((node) =>
    !RENDERED_WHOLE.has(node.type) && node.children && node.children.length > 0 ? openGroups(node.children) : [node],
  );
}

/** The list level of a node that renders as a list item, or undefined. */
function listLevel(node: OfficeContentNode, ctx: RenderContext): number | undefined {
  const numbered = ctx.numbered.get(node);
  if (numbered) return numbered.level;
  return node.type === 'list' ? Math.max(0, node.metadata?.indentation ?? 0) : undefined;
}

/**
 * Consecutive list items stay together; every other block gets a blank line around it. A nested
 * item is indented to its parent's text, which after `10.` is four spaces, after `-` two.
 */
function joinSlideBlocks(nodes: readonly OfficeContentNode[], ctx: RenderContext, headingDepth: number): string {
  const parts: string[] = [];
  /** The open items above the next one: their levels and the widths of their markers. */
  let parents: { level: number; width: number }[] = [];
  for (const node of openGroups(nodes)) {
    const rendered = renderNode(node, ctx, headingDepth)
      .map((block) => block.replace(/^\s*\n|\s+$/g, ''))
      .filter((block) => block.trim().length > 0);
    if (rendered.length === 0) continue;
    const level = listLevel(node, ctx);
    const first = rendered[0] ?? '';
    if (level === undefined || rendered.length !== 1) {
      parents = [];
      parts.push((parts.length === 0 ? '' : '\n\n') + rendered.join('\n\n'));
      continue;
    }
    const continuing = parents.length > 0;
    parents = parents.filter((p) => p.level < level);
    const indent = ' '.repeat(parents.reduce((sum, p) => sum + p.width, 0));
    parents.push({ level, width: (/^\S+ /.exec(first)?.[0] ?? '- ').length });
    parts.push((parts.length === 0 ? '' : continuing ? '\n' : '\n\n') + indent + first);
  }
  return parts.join('');
}

function renderSlide(slide: OfficeContentNode, index: number, ctx: RenderContext): string {
  const number = slide.type === 'slide' ? (slide.metadata?.slideNumber ?? index + 1) : index + 1;
  const notes = (slide.notes ?? []).flatMap((note) => note.children ?? [note]);
  const notesText = joinSlideBlocks(notes, ctx, 5);
  return joinBlocks([
    `## Slide ${number}`,
    joinSlideBlocks(slide.children ?? [], ctx, 3),
    notesText.trim() ? `### Notes\n\n${notesText}` : '',
  ]);
}

/** Every paragraph's numbering, slide by slide; [] when the deck numbers nothing or its parts cannot say. */
function readNumbering(bytes: Buffer, label: string, limits: ZipLimits): SlideParagraph[][] {
  const parts = readZipParts(bytes, isNumberingPart, limits, label);
  const text = new Map([...parts].map(([name, data]) => [name, data.toString('utf8').replace(/^\uFEFF/, '')]));
  return slideNumbering(text);
}

/**
 * Pairs officeparser's paragraphs with the numbered paragraphs of the same slide, in order and
 * by text (officeparser drops empty ones and splits items at line breaks), and returns the
 * numbered ones with their labels.
 */
function matchNumbering(slides: readonly OfficeContentNode[], numbering: readonly SlideParagraph[][]): Map<OfficeContentNode, NumberedItem> {
  const numbered = new Map<OfficeContentNode, NumberedItem>();
  // Slides that do not line up (a part left out of the slide list) are better left as they are;
  // so is a deck without numbering ([]).
  if (numbering.length !== slides.length) return numbered;
  slides.forEach((slide, i) => {
    const paragraphs = numbering[i] ?? [];
    let cursor = 0;
    for (const node of openGroups(slide.children ?? []).filter((n) => n.type === 'paragraph' || n.type === 'list')) {
      // A paragraph's line breaks stay in officeparser's text; the numbering has its first line.
      const text = inline(nodeText(node).split(/\r\n|\r|\n|\v/)[0] ?? '');
      const at = paragraphs.findIndex((p, j) => j >= cursor && p.text === text);
      if (at < 0) continue;
      cursor = at + 1;
      const paragraph = paragraphs[at];
      if (paragraph?.label) numbered.set(node, { label: paragraph.label, level: paragraph.level });
    }
  });
  return numbered;
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
  const numbered = matchNumbering(slides, readNumbering(bytes, label, limits));
  const markdown = joinBlocks(slides.map((slide, i) => renderSlide(slide, i, { charts, numbered })));
  // Slide headings and bare placeholders are structure, not text.
  const body = markdown.replace(/^## Slide \d+$/gm, '').replace(/\[(Image|Chart)\]/g, '');
  if (!hasText(body)) {
    throw new ConversionError(`${label} contains no slide text that could be extracted.`);
  }
  return markdown;
}
