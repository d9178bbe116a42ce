// Turns the lines of a PDF's pages (pdf-layout.ts) into Markdown structure: headings from font
// size and weight relative to the body text, paragraphs joined across line breaks (and pages)
// with hyphenation undone, bullet and numbered lists, tables rebuilt from text positions
// (pdf-tables.ts), and running headers, footers and page numbers dropped.
import type { Line } from './pdf-layout.js';
import { findTables } from './pdf-tables.js';
import { escapeBlockStart, gfmTable, joinBlocks } from './markdown.js';
import { bodyStyle, dropRunningLines } from './running-lines.js';
import type { PageLines } from './running-lines.js';

export type { PageLines } from './running-lines.js';

/** One entry of the PDF's outline (bookmarks): the author's own heading list. */
export interface OutlineEntry {
  title: string;
  /** 1 for a top-level entry. */
  level: number;
}

type Block =
  | { kind: 'heading'; page: number; style: string; size: number; text: string; last: Line; outline?: number }
  | { kind: 'paragraph'; page: number; end: number; text: string; last: Line; frame: Frame }
  | { kind: 'item'; page: number; end: number; marker: string; text: string; last: Line; frame: Frame }
  | { kind: 'table'; page: number; rows: string[][] }
  | { kind: 'rule'; page: number; text: string };

const BULLET = /^([•●○◦▪▫■□‣⁃∙·*–-])\s+(?=\S)/u;
const ENUMERATED = /^((?:\d{1,2}|[a-z])[.)]|\((?:\d{1,2}|[a-z])\))\s+(?=\S)/;
const RULE = /^([=\-_*~])\1{2,}$/;

/**
 * The document's words, and those seen hyphenated mid-line (where the hyphen is surely real).
 * The halves of a word broken at a line end are not counted as words.
 */
function vocabulary(pages: readonly PageLines[]): { words: Set<string>; hyphenated: Set<string> } {
  const words = new Set<string>();
  const hyphenated = new Set<string>();
  let broken = false;
  for (const line of pages.flatMap((p) => p.lines)) {
    const tokens = [...line.text.matchAll(/\p{L}+(?:-\p{L}+)*/gu)].map((m) => m[0].toLowerCase());
    const breaks = /\p{L}-$/u.test(line.text);
    tokens.forEach((token, i) => {
      if ((i === 0 && broken) || (i === tokens.length - 1 && breaks)) return;
      if (token.includes('-')) hyphenated.add(token);
      for (const part of token.split('-')) words.add(part);
    });
    broken = breaks;
  }
  return { words, hyphenated };
}

interface Context {
  body: { size: number; bold: boolean };
  /** The outline's titles not yet found in the text, by their match key, with their levels. */
  outline: Map<string, number>;
  words: Set<string>;
  hyphenated: Set<string>;
}

function isHeading(line: Line, ctx: Context): boolean {
  const text = line.text;
  if (text.length > 160 || /[.,;]$/.test(text)) return false;
  // Mostly letters: a total, a date or a barcode in a big font is not a heading.
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters < text.replace(/\s/g, '').length / 2) return false;
  if (line.size >= ctx.body.size * 1.15) return true;
  return line.bold && !ctx.body.bold && line.size >= ctx.body.size * 0.95 && text.length <= 100;
}

/**
 * Joins a line onto text. A hyphen at the line end is dropped (a word broken across lines)
 * unless the document shows the word hyphenated elsewhere, or both halves are words of their
 * own there and the joined word is not ("chat-" + "optimized").
 */
function joinLine(text: string, next: string, ctx: Context): string {
  // Only the tail is searched: a paragraph can grow long, and a regex anchored at its end is not fast.
  const hyphen = /(\p{L}+)-$/u.exec(text.slice(-64));
  const start = /^(\p{Ll}+)/u.exec(next);
  if (hyphen?.[1] && start?.[1]) {
    const [head, tail] = [hyphen[1].toLowerCase(), start[1].toLowerCase()];
    const joined = head + tail;
    const compound = ctx.hyphenated.has(`${head}-${tail}`) || (!ctx.words.has(joined) && ctx.words.has(head) && ctx.words.has(tail));
    return compound ? text + next : text.slice(0, -1) + next;
  }
  return `${text} ${next}`;
}

/** Where a page's body text runs: its left and right edges and its usual line spacing. */
interface Frame {
  left: number;
  right: number;
  /** Baseline to baseline within a paragraph, in font sizes. */
  spacing: number;
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * share)] ?? 0;
}

function frameOf(lines: readonly Line[]): Frame {
  const gaps = new Map<number, number>();
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1], lines[i]];
    if (!a || !b || Math.abs(a.size - b.size) > 0.6) continue;
    const ratio = Math.round(((b.y - a.y) / b.size) * 10) / 10;
    if (ratio >= 0.9 && ratio <= 2.5) gaps.set(ratio, (gaps.get(ratio) ?? 0) + 1);
  }
  let spacing = 1.2;
  let best = 0;
  for (const [ratio, n] of gaps) if (n > best || (n === best && ratio < spacing)) [spacing, best] = [ratio, n];
  return { left: percentile(lines.map((l) => l.x0), 0.1), right: percentile(lines.map((l) => l.x1), 0.9), spacing };
}

/**
 * A line of prose that wraps: it starts at the left edge (give or take an indent), runs to the
 * right edge, and holds several words. Centred lines and receipt lines break where the author
 * broke them.
 */
function isFull(line: Line, frame: Frame): boolean {
  const words = line.text.split(/\s+/).length;
  return line.x0 <= frame.left + line.size * 3 && line.x1 >= frame.right - line.size * 2 && words >= 5;
}

/**
 * True when the line was broken by wrapping: it runs to the right edge, or the next line's first
 * word would not have fitted after it. Works on geometry alone, so ragged-right text and lines
 * drawn with fonts of their own join as well as justified ones.
 */
function wrapsInto(line: Line, next: Line, frame: Frame): boolean {
  if (isFull(line, frame)) return true;
  // Only prose: a line of several words in one run, not a receipt's or a form's columns.
  if (line.x0 > frame.left + line.size * 3 || line.text.split(/\s+/).length < 5) return false;
  if (line.segments.length > 1 || next.segments.length > 1) return false;
  const word = /^\S+/.exec(next.text)?.[0] ?? '';
  const charWidth = (next.x1 - next.x0) / Math.max(1, next.text.length);
  return line.x1 + charWidth * (word.length + 1) > frame.right;
}

/** Sizes this close are one font size: a few percent of rounding, scaling or a new font object. */
function sameSize(a: Line, b: Line): boolean {
  return Math.abs(a.size - b.size) <= Math.max(0.6, Math.min(a.size, b.size) * 0.08);
}

/** The next line of the same paragraph is this close, in font sizes. */
function closeBelow(previous: Line, line: Line, frame: Frame): boolean {
  const gap = line.y - previous.y;
  return gap > 0 && gap <= line.size * Math.max(1.5, frame.spacing * 1.2);
}

function continues(block: Block | undefined, line: Line, page: number, frame: Frame): block is Extract<Block, { kind: 'paragraph' | 'item' }> {
  if (!block || (block.kind !== 'paragraph' && block.kind !== 'item')) return false;
  const last = block.last;
  if (!sameSize(last, line) || last.bold !== line.bold) return false;
  const full = wrapsInto(last, line, block.frame);
  // Across a page break only a paragraph cut mid-sentence continues.
  if (block.end !== page) return full && !/[.!?:]$/.test(last.text);
  if (!closeBelow(last, line, frame)) return false;
  // A list item's next lines are indented past its marker.
  if (block.kind === 'item') return line.x0 > last.x0 - 1 && full;
  return true;
}

function startsItem(line: Line, previous: Block | undefined, page: number, frame: Frame): RegExpExecArray | null {
  const bullet = BULLET.exec(line.text);
  if (bullet) return bullet;
  const enumerated = ENUMERATED.exec(line.text);
  if (!enumerated) return null;
  // "(1)" at the start of a line in the middle of a paragraph is not a list.
  if (previous?.kind === 'paragraph' && previous.end === page && isFull(previous.last, frame) && closeBelow(previous.last, line, frame)) {
    return null;
  }
  return enumerated;
}

function outlineKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** The outline level of a line that is one of the outline's titles (each is found once). */
function outlineLevel(line: Line, ctx: Context): number | undefined {
  if (ctx.outline.size === 0 || line.text.length > 200) return undefined;
  const key = outlineKey(line.text);
  const level = ctx.outline.get(key);
  if (level !== undefined) ctx.outline.delete(key);
  return level;
}

function addLine(blocks: Block[], line: Line, page: number, frame: Frame, ctx: Context): void {
  const previous = blocks.at(-1);
  const text = line.text;
  const outline = outlineLevel(line, ctx);
  if (outline !== undefined) {
    blocks.push({ kind: 'heading', page, style: `${line.size}${line.bold ? 'b' : ''}`, size: line.size, text, last: line, outline });
    return;
  }
  if (RULE.test(text.replace(/\s/g, ''))) {
    blocks.push({ kind: 'rule', page, text: text.replace(/\s/g, '') });
    return;
  }
  if (isHeading(line, ctx)) {
    const style = `${line.size}${line.bold ? 'b' : ''}`;
    // A heading wraps onto a second line only from a wide first line.
    const wraps = previous?.kind === 'heading' && previous.style === style && previous.page === page && isFull(previous.last, frame);
    if (wraps && closeBelow(previous.last, line, frame)) {
      previous.text = joinLine(previous.text, text, ctx);
      previous.last = line;
    } else {
      blocks.push({ kind: 'heading', page, style, size: line.size, text, last: line });
    }
    return;
  }
  const item = startsItem(line, previous, page, frame);
  if (item?.[0] && item[1]) {
    blocks.push({ kind: 'item', page, end: page, marker: item[1], text: text.slice(item[0].length), last: line, frame });
    return;
  }
  if (continues(previous, line, page, frame)) {
    // A short line ends where the author broke it (an address, a receipt): keep the break.
    const wrapped = wrapsInto(previous.last, line, previous.frame) || previous.end !== page;
    previous.text = wrapped ? joinLine(previous.text, text, ctx) : `${previous.text}\n${text}`;
    previous.last = line;
    previous.end = page;
    previous.frame = frame;
    return;
  }
  blocks.push({ kind: 'paragraph', page, end: page, text, last: line, frame });
}

/**
 * Heading levels by font size over the whole document, largest first, bold before regular.
 * Sizes are clustered: sizes within half a point of the next are one level (rounding, a font
 * drawn a little larger), and any larger step starts a new level, however close to the last.
 */
function headingLevels(blocks: readonly Block[], first: number): Map<string, number> {
  const styles = new Map<string, { size: number; bold: boolean }>();
  for (const b of blocks) if (b.kind === 'heading' && b.outline === undefined) styles.set(b.style, { size: b.size, bold: b.style.endsWith('b') });
  const ordered = [...styles].sort(([, a], [, b]) => b.size - a.size || Number(b.bold) - Number(a.bold));
  const levels = new Map<string, number>();
  let level = first - 1;
  let previous: { size: number; bold: boolean } | null = null;
  for (const [style, current] of ordered) {
    if (!previous || previous.size - current.size > 0.5 || previous.bold !== current.bold) level++;
    levels.set(style, Math.min(level, 6));
    previous = current;
  }
  return levels;
}

/**
 * With an outline, its entries give the levels. Headings found by font alone go below the
 * outline's deepest level, or above it when larger than every outline heading (a title page).
 */
function assignLevels(blocks: Block[]): (block: Extract<Block, { kind: 'heading' }>) => number {
  const fromOutline = blocks.filter((b): b is Extract<Block, { kind: 'heading' }> => b.kind === 'heading' && b.outline !== undefined);
  if (fromOutline.length === 0) {
    const levels = headingLevels(blocks, 1);
    return (block) => levels.get(block.style) ?? 6;
  }
  const largest = Math.max(...fromOutline.map((b) => b.size));
  const title = blocks.some((b) => b.kind === 'heading' && b.outline === undefined && b.size > largest + 0.5);
  const shift = title ? 1 : 0;
  const deepest = Math.max(...fromOutline.map((b) => b.outline ?? 1)) + shift;
  const levels = headingLevels(blocks, deepest + 1);
  return (block) => {
    if (block.outline !== undefined) return Math.min(6, block.outline + shift);
    if (title && block.size > largest + 0.5) return 1;
    return levels.get(block.style) ?? 6;
  };
}
function itemMarker(marker: string): string {
  const number = /^(\d{1,2})[.)]$/.exec(marker);
  return number ? `${number[1]}.` : BULLET.test(`${marker} x`) ? '-' : `- ${marker}`;
}

function escapeLines(text: string): string {
  return text
    .split('\n')
    .map((line, i) => escapeBlockStart(line, i === 0))
    .join('\n');
}

function render(block: Block, level: (block: Extract<Block, { kind: 'heading' }>) => number): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(level(block))} ${block.text.replace(/\s+/g, ' ')}`;
    case 'paragraph':
      return escapeLines(block.text);
    case 'item':
      return `${itemMarker(block.marker)} ${block.text.replace(/\n/g, ' ')}`;
    case 'table':
      return gfmTable(block.rows);
    case 'rule':
      // On its own between blank lines, a rule of `=` is plain text, and one of `-`, `*` or `_`
      // is a thematic break: what it was on the page.
      return block.text;
  }
}

/** Markdown for the pages' lines; a page break is marked with an HTML comment. */
export function pagesToMarkdown(input: readonly PageLines[], outline: readonly OutlineEntry[] = []): string {
  const pages = dropRunningLines(input);
  const ctx: Context = { body: bodyStyle(pages), outline: new Map(), ...vocabulary(pages) };
  for (const entry of outline) {
    const key = outlineKey(entry.title);
    if (key && !ctx.outline.has(key)) ctx.outline.set(key, entry.level);
  }
  const blocks: Block[] = [];
  for (const page of pages) {
    const frame = frameOf(page.lines);
    const tables = findTables(page.lines);
    for (let i = 0; i < page.lines.length; i++) {
      const table = tables.find((t) => t.start === i);
      if (table) {
        blocks.push({ kind: 'table', page: page.number, rows: table.rows });
        i = table.end - 1;
        continue;
      }
      const line = page.lines[i];
      if (line) addLine(blocks, line, page.number, frame, ctx);
    }
  }
  const levels = assignLevels(blocks);
  const out: string[] = [];
  let page = 1;
  let previous: Block | undefined;
  for (const block of blocks) {
    // A paragraph joined across a page break ends on a later page; the marker goes after it.
    const marker = block.page > page;
    if (marker) out.push(`<!-- Page ${block.page} -->`);
    // Items in a row are one tight list.
    if (block.kind === 'item' && previous?.kind === 'item' && !marker) out.push(`${out.pop() ?? ''}\n${render(block, levels)}`);
    else out.push(render(block, levels));
    page = Math.max(page, 'end' in block ? block.end : block.page);
    previous = block;
  }
  return joinBlocks(out);
}
