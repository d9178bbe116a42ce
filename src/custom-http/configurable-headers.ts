// `http.configurable_headers` (langgraph.json): which request headers join a run's
// `config.configurable`, as LangGraph's server documents it. Names and patterns (`*` is the only
// wildcard) are matched without case; an exclusion wins over an inclusion. Without `includes`,
// every `x-` header is a candidate; without `excludes`, the credentials LangGraph names stay out.
// A value the body already sets wins over the header's.
import type { FastifyRequest } from 'fastify';

export interface HeaderFilter {
  (name: string): boolean;
}

const DEFAULT_INCLUDES = ['x-*'];
const DEFAULT_EXCLUDES = ['x-api-key', 'x-tenant-id', 'x-service-key'];
/** Never copied: they carry credentials or are Warren's own plumbing. */
const NEVER = new Set(['authorization', 'cookie', 'x-api-key', 'x-warren-custom-http-reentry']);
/** The run-creating routes (LangGraph's and crons'), without the /api/langgraph prefix. */
const RUN_CREATE = /\/runs(\/stream|\/wait|\/crons)?$/;

function patternTest(pattern: string): (name: string) => boolean {
  const lower = pattern.toLowerCase();
  if (!lower.includes('*')) return (name) => name === lower;
  const re = new RegExp(`^${lower.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (name) => re.test(name);
}

export function headerFilter(config: { includes?: string[]; excludes?: string[] }): HeaderFilter {
  const includes = (config.includes ?? DEFAULT_INCLUDES).map(patternTest);
  const excludes = (config.excludes ?? DEFAULT_EXCLUDES).map(patternTest);
  return (name) => !NEVER.has(name) && includes.some((test) => test(name)) && !excludes.some((test) => test(name));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Adds the chosen headers under `config.configurable` of a run-create body. */
export function addConfigurableHeaders(request: FastifyRequest, filter: HeaderFilter): void {
  if (request.method !== 'POST' || !RUN_CREATE.test(request.routeOptions.url ?? '') || !isRecord(request.body)) return;
  const chosen: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && filter(name)) chosen[name] = value;
  }
  if (Object.keys(chosen).length === 0) return;
  const body = request.body;
  const config = isRecord(body.config) ? body.config : {};
  const configurable = isRecord(config.configurable) ? config.configurable : {};
  body.config = { ...config, configurable: { ...chosen, ...configurable } };
}
