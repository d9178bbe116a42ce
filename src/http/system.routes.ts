// Liveness and build information. `/ok` stays cheap: load balancers poll it.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

export interface SystemRoutesOptions {
  version: string;
  /** True when Redis answers; /ok reports it without failing liveness on a blip. */
  redisReady: () => boolean;
  graphs: () => string[];
  /** Prometheus text for /metrics. */
  metrics: () => Promise<string>;
}

export async function systemRoutes(app: FastifyInstance, opts: SystemRoutesOptions): Promise<void> {
  app.get(
    '/ok',
    {
      // Load balancers poll it without credentials: the one route API keys never guard.
      config: { public: true },
      schema: {
        tags: ['system'],
        security: [],
        response: { 200: Type.Object({ ok: Type.Boolean(), redis: Type.Boolean() }) },
      },
    },
    async () => ({ ok: true, redis: opts.redisReady() }),
  );

  app.get('/metrics', { schema: { tags: ['system'], response: { 200: Type.String() } } }, async (_req, reply) => {
    void reply.type('text/plain; version=0.0.4; charset=utf-8');
    return opts.metrics();
  });

  app.get(
    '/info',
    {
      schema: {
        tags: ['system'],
        response: {
          200: Type.Object({
            name: Type.String(),
            version: Type.String(),
            node: Type.String(),
            graphs: Type.Array(Type.String()),
            flags: Type.Object({ assistants: Type.Boolean(), crons: Type.Boolean(), store: Type.Boolean() }),
          }),
        },
      },
    },
    async () => ({
      name: 'warren',
      version: opts.version,
      node: process.version,
      graphs: opts.graphs(),
      // LangGraph clients read these flags to decide which features to offer.
      flags: { assistants: true, crons: false, store: false },
    }),
  );
}
