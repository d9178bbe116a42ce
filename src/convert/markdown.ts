// Small Markdown helpers shared by the converters that build Markdown by hand (sheets, slides,
// PDF and plain-text fallbacks). The DOCX path uses turndown instead.

/** Escapes a value for one GFM table cell: pipes are escaped, line breaks become `<br>`. */
export function escapeCell(value: string): string {
  return (
    value
      .trim()
      // A backslash right before a pipe would swallow the pipe's escape, so double it first.
      .replace(/\\(?=\|)/g, '\\\\')
      .replace(/\|/g, '\\|')
      .replace(/\r\n|\r|\n/g, '<br>')
  );
}

/** Renders rows as a GFM pipe table; the first row is the header. Returns '' for no rows. */
export function gfmTable(rows: readonly (readonly string[])[]): string {
  const width = rows.reduce((max, row) => Math.max(max, row.length), 0);
  if (rows.length === 0 || width === 0) return '';
  const line = (row: readonly string[]): string => {
    const cells = Array.from({ length: width }, (_, i) => escapeCell(row[i] ?? ''));
    return `| ${cells.join(' | ')} |`;
  };
  const [header, ...body] = rows;
  const delimiter = `|${' --- |'.repeat(width)}`;
  return [line(header ?? []), delimiter, ...body.map(line)].join('\n');
}

/**
 * Stops the first line of a block of extracted plain text from being read as Markdown block
 * syntax that would change what it says: a heading, a quote or a code fence. A line that is
 * only a rule (`=====`, `-----`) stays as it is: alone in its block, `=` is plain text and `-`
 * is a thematic break, which is what the rule was. Leading whitespace (a code block) goes.
 */
export function escapeLineStart(line: string): string {
  const trimmed = line.replace(/^[ \t]+/, '');
  if (/^(#{1,6}(\s|$)|>|```|~~~)/.test(trimmed)) return `\\${trimmed}`;
  return trimmed;
}

/**
 * Like escapeLineStart, and for a line that continues a block (`first` false) also escapes what
 * would end the paragraph or retitle it: a setext underline, a rule, a bullet or a list that
 * starts at 1.
 */
export function escapeBlockStart(line: string, first: boolean): string {
  const escaped = escapeLineStart(line);
  if (first || escaped !== line.replace(/^[ \t]+/, '')) return escaped;
  if (/^([-=_*])\1*\s*$/.test(escaped.replace(/ /g, '')) || /^[-+*](\s|$)/.test(escaped)) return `\\${escaped}`;
  // Only a list that starts at 1 can interrupt a paragraph; a digit cannot be escaped, its dot can.
  if (/^1[.)](\s|$)/.test(escaped)) return `1\\${escaped.slice(1)}`;
  return escaped;
}

/** Turns plain text into Markdown paragraphs: one paragraph per non-empty line. */
export function plainTextToMarkdown(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => escapeLineStart(line.replace(/\t/g, '  ').trimEnd()))
    .filter((line) => line.length > 0)
    .join('\n\n');
}

/** Joins Markdown blocks with one blank line between them, dropping empty blocks. */
export function joinBlocks(blocks: readonly string[]): string {
  // Only blank lines are trimmed: a block may start with meaningful indentation (a nested item).
  const kept = blocks.map((b) => b.replace(/^\s*\n/, '').trimEnd()).filter((b) => b.trim().length > 0);
  return kept.length === 0 ? '' : `${kept.join('\n\n')}\n`;
}

/** True when the text holds at least one letter or digit (in any script). */
export function hasText(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}
