// CORS from config. Exposes the headers LangGraph clients read from responses.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { ProjectCors } from '../../config/langgraph-json.schemas.js';

export interface CorsOptions {
  origins: readonly string[];
  credentials: boolean;
  /** Origins matching this are allowed too (langgraph.json's `http.cors.allow_origin_regex`). */
  originRegex?: string;
  methods?: readonly string[];
  allowedHeaders?: readonly string[];
  /** Exposed beside the headers LangGraph clients read. */
  exposedHeaders?: readonly string[];
  maxAgeSeconds?: number;
}

export const EXPOSED_HEADERS = [
  'Content-Location',
  'Location',
  'X-Pagination-Total',
  'X-Pagination-Next',
  'X-Request-Id',
  'Content-Disposition',
];

function allowedOrigins(options: CorsOptions): boolean | (string | RegExp)[] {
  if (options.origins.includes('*')) return true;
  return options.originRegex === undefined ? [...options.origins] : [...options.origins, new RegExp(options.originRegex)];
}

export async function registerCors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  if (options.origins.length === 0 && options.originRegex === undefined) return;
  await app.register(cors, {
    origin: allowedOrigins(options),
    credentials: options.credentials,
    exposedHeaders: [...new Set([...EXPOSED_HEADERS, ...(options.exposedHeaders ?? [])])],
    methods: options.methods ? [...options.methods] : ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    ...(options.allowedHeaders ? { allowedHeaders: [...options.allowedHeaders] } : {}),
    ...(options.maxAgeSeconds === undefined ? {} : { maxAge: options.maxAgeSeconds }),
  });
}

/** langgraph.json's `http.cors` as CorsOptions; without `allow_origins` (or a regex) any origin, as LangGraph. */
export function projectCorsOptions(cors: ProjectCors): CorsOptions {
  const origins = cors.allow_origins ?? (cors.allow_origin_regex === undefined ? ['*'] : []);
  return {
    origins,
    credentials: cors.allow_credentials ?? false,
    ...(cors.allow_origin_regex === undefined ? {} : { originRegex: cors.allow_origin_regex }),
    ...(cors.allow_methods ? { methods: cors.allow_methods } : {}),
    ...(cors.allow_headers ? { allowedHeaders: cors.allow_headers } : {}),
    ...(cors.expose_headers ? { exposedHeaders: cors.expose_headers } : {}),
    ...(cors.max_age === undefined ? {} : { maxAgeSeconds: cors.max_age }),
  };
}
