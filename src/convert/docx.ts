// .docx → Markdown: mammoth turns the document into semantic HTML, turndown (with the GFM
// plugin) turns that into Markdown. Images become a text placeholder (never inline base64), and
// mammoth's external file access stays off, so linked files outside the document are never read.
import { gfm } from '@joplin/turndown-plugin-gfm';
import mammoth from 'mammoth';
import TurndownService from 'turndown';
import { ConversionError } from '../errors.js';
import { repairDocument } from './docx-tree.js';
import { hasText } from './markdown.js';

// Word's built-in title styles are not in mammoth's default style map.
const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name='Subtitle'] => h2:fresh",
];

/** The slice of the DOM (turndown's domino nodes) the rules below read; no DOM lib is loaded. */
interface DomElement {
  readonly nodeName: string;
  readonly parentNode: DomElement | null;
  readonly nextSibling: unknown;
  readonly children: ArrayLike<unknown>;
  getAttribute(name: string): string | null;
}

function asElement(node: unknown): DomElement {
  return node as DomElement;
}

function imagePlaceholder(alt: string): string {
  const text = alt.replace(/\s+/g, ' ').trim();
  return text ? `[Image: ${text}]` : '[Image]';
}

function createTurndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '*',
    strongDelimiter: '**',
  });
  service.use(gfm);
  service.addRule('imagePlaceholder', {
    filter: 'img',
    replacement: (_content, node) => imagePlaceholder(asElement(node).getAttribute('alt') ?? ''),
  });
  // turndown's default pads list markers to four columns ("-   item"); one space reads better.
  service.addRule('compactListItem', {
    filter: 'li',
    replacement: (content, node) => {
      const item = asElement(node);
      const parent = item.parentNode;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        const index = Array.prototype.indexOf.call(parent.children, item);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const isParagraph = /\n$/.test(content);
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (isParagraph ? '\n' : '');
      return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (item.nextSibling ? '\n' : '');
    },
  });
  return service;
}

/** Converts a .docx file to Markdown. */
export async function docxToMarkdown(bytes: Buffer, label: string): Promise<string> {
  const result = await mammoth.convertToHtml(
    { buffer: bytes },
    {
      styleMap: STYLE_MAP,
      externalFileAccess: false,
      // Never read image bytes: the alt text is all the Markdown keeps.
      convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      transformDocument: repairDocument,
    },
  );
  const markdown = createTurndown().turndown(result.value).trim();
  if (!hasText(markdown.replace(/\[Image\]/g, ''))) {
    throw new ConversionError(`${label} contains no text that could be extracted.`);
  }
  return `${markdown}\n`;
}
