// Unit tests for the small pure pieces: Markdown helpers and PDF line ordering.
import { describe, expect, it } from 'vitest';
import { escapeCell, escapeLineStart, gfmTable, plainTextToMarkdown } from '../../src/convert/markdown.js';
import { displayName, formatDuration } from '../../src/convert/messages.js';
import { layoutText } from '../../src/convert/pdf-layout.js';
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
    expect(escapeLineStart('=========')).toBe('\\=========');
    expect(escapeLineStart('- - -')).toBe('\\- - -');
    expect(escapeLineStart('    indented')).toBe('indented');
    expect(escapeLineStart('- a real item')).toBe('- a real item');
    expect(escapeLineStart('#hashtag')).toBe('#hashtag');
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

  it('keeps drawing order when columns sit side by side', () => {
    const left = [100, 115, 130].map((y, i) => item(`left ${i}`, 50, y, true));
    const right = [100, 115, 130].map((y, i) => item(`right ${i}`, 350, y, true));
    expect(layoutText([...left, ...right]).split('\n')).toEqual([
      'left 0',
      'left 1',
      'left 2',
      'right 0',
      'right 1',
      'right 2',
    ]);
  });
});
