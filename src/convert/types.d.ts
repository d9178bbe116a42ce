// Minimal types for the untyped libraries the converters use: only what src/convert calls.

declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** Adds GFM tables, strikethrough and task lists to a turndown service. */
  export function gfm(service: TurndownService): void;
}

declare module 'word-extractor' {
  interface TextOptions {
    /** Default true: turns curly quotes and similar into ASCII. */
    filterUnicode?: boolean;
  }

  class WordDocument {
    getBody(options?: TextOptions): string;
    getFootnotes(options?: TextOptions): string;
    getEndnotes(options?: TextOptions): string;
    getHeaders(options?: TextOptions & { includeFooters?: boolean }): string;
    getFooters(options?: TextOptions): string;
    getAnnotations(options?: TextOptions): string;
    getTextboxes(options?: TextOptions & { includeHeadersAndFooters?: boolean; includeBody?: boolean }): string;
  }

  class WordExtractor {
    /** Reads a .doc (OLE2) or .docx from a buffer; a string is taken as a file path. */
    extract(source: Buffer): Promise<WordDocument>;
  }

  export = WordExtractor;
}
