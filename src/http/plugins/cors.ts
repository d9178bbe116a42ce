// CORS from config. Exposes the headers LangGraph clients read from responses.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export interface CorsOptions {
  origins: readonly string[];
  credentials: boolean;
}

export const EXPOSED_HEADERS = [
  'Content-Location',
  'Location',
  'X-Pagination-Total',
  'X-Pagination-Next',
  'X-Request-Id',
  'Content-Disposition',
];

export async function registerCors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  if (options.origins.length === 0) return;
  await app.register(cors, {
    origin: options.origins.includes('*') ? true : [...options.origins],
    credentials: options.credentials,
    exposedHeaders: EXPOSED_HEADERS,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  });
}
