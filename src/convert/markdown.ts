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
 * Stops a line of extracted plain text from being read as Markdown block syntax
 * (a heading, quote, rule, setext underline or code block) when it is just text.
 */
export function escapeLineStart(line: string): string {
  const trimmed = line.replace(/^[ \t]+/, '');
  if (/^(#{1,6}(\s|$)|>)/.test(trimmed)) return `\\${trimmed}`;
  if (/^([-=_*])\1{2,}\s*$/.test(trimmed.replace(/ /g, ''))) return `\\${trimmed}`;
  return trimmed;
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
