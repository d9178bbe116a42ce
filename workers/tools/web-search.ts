// `web_search`: a query to a compact Markdown list of results (title, URL, snippet), from the
// configured provider. Tavily takes the key in the JSON body; SearXNG is a self-hosted JSON API.
// The key is read from the environment at call time, so a missing key fails the search with a
// clear message, not the worker's boot.
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import type { WebConfig } from '../../src/config/app-config.schemas.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { defineTool, nullable } from './define-tool.js';
import { WebSearchFailedError, WebSearchUnconfiguredError } from './tools.errors.js';

export const TAVILY_DEFAULT_URL = 'https://api.tavily.com/search';
const SNIPPET_MAX_CHARS = 500;

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The `results` array both providers answer with, read defensively. */
function parseResults(body: unknown, max: number): SearchResult[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new WebSearchFailedError('The search provider answered without a results list.');
  return results.slice(0, max).flatMap((r: unknown) => {
    const item = (r ?? {}) as Record<string, unknown>;
    const url = str(item.url);
    if (!url) return [];
    return [{ title: str(item.title).trim() || url, url, snippet: str(item.content ?? item.snippet).replace(/\s+/g, ' ').trim() }];
  });
}

export function formatResults(query: string, results: SearchResult[]): string {
  if (results.length === 0) return `No results for "${query}".`;
  const lines = results.map((r, i) => {
    const snippet = r.snippet.length > SNIPPET_MAX_CHARS ? `${r.snippet.slice(0, SNIPPET_MAX_CHARS)}…` : r.snippet;
    return `${i + 1}. [${r.title.replace(/[[\]]/g, '')}](${r.url})${snippet ? `\n   ${snippet}` : ''}`;
  });
  return `Results for "${query}":\n\n${lines.join('\n')}`;
}

async function request(url: string, init: RequestInit, web: WebConfig, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(web.fetch_timeout_seconds * 1000);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    if (timeout.aborted) throw new WebSearchFailedError(`The search provider did not answer within ${web.fetch_timeout_seconds} s.`);
    if (signal?.aborted) throw err;
    throw new WebSearchFailedError(`The search provider could not be reached (${(err as Error).message}).`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new WebSearchFailedError(`The search provider answered HTTP ${response.status}.`);
  }
  try {
    return await response.json();
  } catch {
    throw new WebSearchFailedError('The search provider answered with something other than JSON.');
  }
}

async function searchTavily(query: string, web: WebConfig, signal?: AbortSignal): Promise<SearchResult[]> {
  const key = resolveEnvRef(web.search_api_key);
  if (key.missing) throw new WebSearchUnconfiguredError(`web_search is not configured: the environment variable ${key.missing} (web.search_api_key) is not set.`);
  if (!key.value) throw new WebSearchUnconfiguredError('web_search is not configured: web.search_api_key is not set.');
  const body = await request(
    web.search_url ?? TAVILY_DEFAULT_URL,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key.value, query, max_results: web.search_max_results }) },
    web,
    signal,
  );
  return parseResults(body, web.search_max_results);
}

async function searchSearxng(query: string, web: WebConfig, signal?: AbortSignal): Promise<SearchResult[]> {
  if (!web.search_url) throw new WebSearchUnconfiguredError('web_search is not configured: web.search_url (the SearXNG address) is not set.');
  const url = new URL('search', web.search_url.endsWith('/') ? web.search_url : `${web.search_url}/`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  const body = await request(url.href, { headers: { accept: 'application/json' } }, web, signal);
  return parseResults(body, web.search_max_results);
}

export function createWebSearchTool(web: WebConfig): StructuredToolInterface {
  const schema = Type.Object({
    query: Type.String({ minLength: 1, description: 'What to search for.' }),
    max_results: nullable(Type.Integer({ minimum: 1, description: `How many results to return (at most ${web.search_max_results}).` })),
  });
  return defineTool(
    {
      name: 'web_search',
      description: `Search the web. Returns up to ${web.search_max_results} results, each a title, URL and snippet; read a result in full with web_fetch.`,
      schema,
    },
    async ({ query, max_results: wanted }, config) => {
      const search = web.search_provider === 'searxng' ? searchSearxng : searchTavily;
      const results = await search(query, web, config.signal);
      return formatResults(query, wanted ? results.slice(0, Math.min(wanted, web.search_max_results)) : results);
    },
  );
}
