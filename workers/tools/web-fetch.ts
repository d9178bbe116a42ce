// `web_fetch`: one http(s) URL to text the model can read. HTML becomes Markdown (turndown with
// GFM tables); plain text, Markdown, CSV, XML and JSON pass through. The download is bounded in
// time and bytes, redirects are followed by hand so each hop is checked, and the Markdown is
// cut to a size a context window can take.
import type { StructuredToolInterface } from '@langchain/core/tools';
import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { Type } from 'typebox';
import type { WebConfig } from '../../src/config/app-config.schemas.js';
import { NetHostPrivateError, NetSchemeUnsupportedError } from '../../src/net/net.errors.js';
import { guardedFetch, type GuardedFetch, type Resolver } from '../../src/net/outbound-guard.js';
import { defineTool } from './define-tool.js';
import { WebContentUnsupportedError, WebFetchFailedError, WebUrlInvalidError } from './tools.errors.js';

/** Characters of text one fetch returns. */
export const WEB_FETCH_MAX_CHARS = 50_000;
const MAX_REDIRECTS = 5;
const USER_AGENT = 'Mozilla/5.0 (compatible; WarrenAgent/0.1; +https://github.com/)';

export interface WebFetchOptions {
  /** Allow loopback and private addresses (tests, intranet deployments). Default false. */
  allowPrivateNetwork?: boolean;
  /** Stands in for DNS (tests of rebinding); the system resolver otherwise. */
  resolver?: Resolver;
}

interface Fetched {
  url: string;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

export function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new WebUrlInvalidError(`${JSON.stringify(raw)} is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetSchemeUnsupportedError(`Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}.`);
  }
  return url;
}

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks), truncated: false };
    chunks.push(Buffer.from(value));
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
    }
  }
}

async function download(start: URL, web: WebConfig, guarded: GuardedFetch, signal?: AbortSignal): Promise<Fetched> {
  const timeout = AbortSignal.timeout(web.fetch_timeout_seconds * 1000);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await guarded(start, {
      signal: combined,
      headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5' },
    });
    const url = new URL(response.url || start.href);
    if (!response.ok) {
      await response.body?.cancel();
      throw new WebFetchFailedError(`${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`);
    }
    const { body, truncated } = await readCapped(response, web.fetch_max_bytes);
    return { url: url.href, contentType: response.headers.get('content-type') ?? '', body, truncated };
  } catch (err) {
    if (timeout.aborted) throw new WebFetchFailedError(`${start.href} did not answer within ${web.fetch_timeout_seconds} s.`);
    // The guarded connection refused the address the name resolved to (rebinding, say).
    if (err instanceof Error && err.cause instanceof NetHostPrivateError) throw err.cause;
    if (err instanceof Error && err.name === 'TypeError') throw new WebFetchFailedError(`Could not fetch ${start.href}: ${causeOf(err)}.`);
    throw err;
  }
}

function causeOf(err: Error): string {
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? err.message;
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the best guess on today's web.
    return new TextDecoder('utf-8').decode(body);
  }
}

function htmlToMarkdown(html: string): { title: string | null; markdown: string } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim() || null;
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', hr: '---' });
  service.use(gfm);
  // turndown parses in a body context, where <head> dissolves and <title> would become text.
  service.remove(['head', 'title', 'meta', 'link', 'script', 'style', 'noscript', 'iframe', 'svg', 'canvas', 'template', 'form', 'button', 'select']);
  const markdown = service.turndown(html).replace(/\n{3,}/g, '\n\n').trim();
  return { title, markdown };
}

type Kind = 'html' | 'json' | 'text';

function kindOf(contentType: string, body: Buffer): Kind | null {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml') || type === 'application/javascript') return 'text';
  if (type === '' || type === 'application/octet-stream') {
    if (body.subarray(0, 8192).includes(0)) return null;
    return /^\s*<(!doctype html|html)/i.test(body.subarray(0, 1024).toString('latin1')) ? 'html' : 'text';
  }
  return null;
}

/** Turns a download into the text the model reads. */
function renderFetched(fetched: Fetched): string {
  const kind = kindOf(fetched.contentType, fetched.body);
  if (!kind) {
    throw new WebContentUnsupportedError(`${fetched.url} is ${fetched.contentType || 'binary data'}; web_fetch reads web pages, text and JSON only.`);
  }
  const text = decode(fetched.body, fetched.contentType);
  let header = `URL: ${fetched.url}`;
  let content = text;
  if (kind === 'html') {
    const page = htmlToMarkdown(text);
    if (page.title) header += `\nTitle: ${page.title}`;
    content = page.markdown;
  } else if (kind === 'json' && !fetched.truncated) {
    try {
      content = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Invalid JSON is still worth reading as it is.
    }
  }
  const notes: string[] = [];
  if (fetched.truncated) notes.push('[the page was larger than the download limit; only its beginning was read]');
  if (content.length > WEB_FETCH_MAX_CHARS) {
    content = content.slice(0, WEB_FETCH_MAX_CHARS);
    notes.push(`[text cut at ${WEB_FETCH_MAX_CHARS} characters]`);
  }
  return [header, '', content, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

export function createWebFetchTool(web: WebConfig, options: WebFetchOptions = {}): StructuredToolInterface {
  const guarded = guardedFetch({
    what: 'web_fetch',
    maxRedirects: MAX_REDIRECTS,
    ...(options.allowPrivateNetwork ? { allowPrivate: true } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  const schema = Type.Object({ url: Type.String({ description: 'An http or https URL.' }) });
  return defineTool(
    {
      name: 'web_fetch',
      description: 'Fetch a web page (http or https) and return its content as Markdown; text and JSON come back as they are. Use it to read a URL the user gave or one found with web_search.',
      schema,
    },
    async ({ url }, config) => renderFetched(await download(parseHttpUrl(url), web, guarded, config.signal)),
  );
}
