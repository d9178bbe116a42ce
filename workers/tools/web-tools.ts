// The web tools the configuration turns on: `web_fetch` (web.fetch_enabled) and `web_search`
// (web.search_enabled, with its provider).
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { WebConfig } from '../../src/config/app-config.schemas.js';
import { createWebFetchTool, type WebFetchOptions } from './web-fetch.js';
import { createWebSearchTool } from './web-search.js';

export function createWebTools(web: WebConfig, options: WebFetchOptions = {}): StructuredToolInterface[] {
  const tools: StructuredToolInterface[] = [];
  if (web.fetch_enabled) tools.push(createWebFetchTool(web, options));
  if (web.search_enabled) tools.push(createWebSearchTool(web));
  return tools;
}
