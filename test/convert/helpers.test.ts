// Unit tests for the small pure pieces: Markdown helpers and PDF line ordering.
import { describe, expect, it } from 'vitest';
import { escapeBlockStart, escapeCell, escapeLineStart, gfmTable, plainTextToMarkdown } from '../../src/convert/markdown.js';
import { displayName, formatDuration } from '../../src/convert/messages.js';
import { layoutLines, layoutText } from '../../src/convert/pdf-layout.js';
import type { PositionedText } from '../../src/convert/pdf-layout.js';

function item(str: string, x: number, y: number, hasEOL = false): PositionedText {
  return { str, x, y, width: str.length * 5, height: 10, hasEOL };
}

describe('Markdown and message helpers', () => {
  it('escapes pipes and line breaks in table cells', () => {
    expect(escapeCell(' a | b ')).toBe('a \\| b');
    expect(escapeCell('one\ntwo\r\nthree')).toBe('one<br>two<br>three');
    // An existing backslash before a pipe must not swallow the pipe's escape.
    expect(escapeCell('a\\|b')).toBe('a\\\\\\|b');
  });

  it('builds a GFM table, padding short rows', () => {
    expect(gfmTable([['A', 'B'], ['1'], ['2', '3']])).toBe('| A | B |\n| --- | --- |\n| 1 |  |\n| 2 | 3 |');
    expect(gfmTable([])).toBe('');
  });

  it('stops plain text lines from turning into Markdown blocks', () => {
    expect(escapeLineStart('# not a heading')).toBe('\\# not a heading');
    expect(escapeLineStart('> not a quote')).toBe('\\> not a quote');
    // Alone in its block a rule of `=` is text, and one of `-` is a rule: nothing to escape.
    expect(escapeLineStart('=========')).toBe('=========');
    expect(escapeLineStart('- - -')).toBe('- - -');
    expect(escapeLineStart('```js')).toBe('\\```js');
    expect(escapeLineStart('    indented')).toBe('indented');
    expect(escapeLineStart('- a real item')).toBe('- a real item');
    expect(escapeLineStart('#hashtag')).toBe('#hashtag');
  });

  it('escapes a continuation line only where it would end or retitle the paragraph', () => {
    expect(escapeBlockStart('=====', true)).toBe('=====');
    expect(escapeBlockStart('=====', false)).toBe('\\=====');
    expect(escapeBlockStart('---', false)).toBe('\\---');
    expect(escapeBlockStart('- item', false)).toBe('\\- item');
    expect(escapeBlockStart('1. first', false)).toBe('1\\. first');
    expect(escapeBlockStart('2. second', false)).toBe('2. second');
    expect(escapeBlockStart('$50 = total', false)).toBe('$50 = total');
  });

  it('turns plain text into paragraphs', () => {
    expect(plainTextToMarkdown('Title\r\n\r\nA\tB\n# x\n')).toBe('Title\n\nA  B\n\n\\# x');
  });

  it('makes file names safe to quote', () => {
    expect(displayName('/uploads/../secret/report.pdf')).toBe('report.pdf');
    expect(displayName('C:\\Users\\x\\a\u0000b.docx')).toBe('ab.docx');
    expect(displayName('')).toBe('the document');
    expect(displayName(`${'x'.repeat(200)}.pdf`)).toHaveLength(120);
  });

  it('formats durations for messages', () => {
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(60_000)).toBe('60 s');
  });
});

describe('PDF line layout', () => {
  it('joins items on one baseline and keeps superscripts on their line', () => {
    const text = layoutText([item('approaches,', 100, 500), { ...item('3', 156, 496), height: 7 }, item('we', 170, 500)]);
    expect(text).toBe('approaches,3 we');
  });

  it('puts a letterhead drawn last back on top', () => {
    const text = layoutText([
      item('Body line one', 50, 300, true),
      item('Body line two', 50, 315, true),
      item('LETTERHEAD', 50, 60, true),
    ]);
    expect(text.split('\n')).toEqual(['LETTERHEAD', 'Body line one', 'Body line two']);
  });

  it('keeps drawing order when columns of prose sit side by side', () => {
    const left = [100, 115, 130].map((y, i) => item(`left column line ${i} of prose text`, 50, y, true));
    const right = [100, 115, 130].map((y, i) => item(`right column line ${i} of prose text`, 350, y, true));
    expect(layoutText([...left, ...right]).split('\n')).toEqual([
      'left column line 0 of prose text',
      'left column line 1 of prose text',
      'left column line 2 of prose text',
      'right column line 0 of prose text',
      'right column line 1 of prose text',
      'right column line 2 of prose text',
    ]);
  });

  it('merges cells drawn one by one into rows, split into segments at wide gaps', () => {
    const cells = [item('B1', 200, 100, true), item('A1', 50, 100, true), item('A2', 50, 115, true), item('B2', 200, 115, true)];
    const lines = layoutLines(cells);
    expect(lines.map((l) => l.segments.map((s) => s.text))).toEqual([
      ['A1', 'B1'],
      ['A2', 'B2'],
    ]);
  });
});
