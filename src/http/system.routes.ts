// Liveness, readiness and build information. `/ok` (and its alias `/health`) is liveness: the
// process runs, whatever Redis does, so an orchestrator never restarts it over a Redis blip.
// `/ready` is readiness: 503 while Redis is unreachable (a Cluster: or its state is not ok) or
// the process drains, so a load balancer sends requests elsewhere. Both stay cheap: they are polled every few seconds.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

export interface SystemRoutesOptions {
  version: string;
  /** True when Redis answers; /ok reports it without failing liveness on a blip. */
  redisReady: () => boolean;
  /** Why Redis is not ready (a Redis Cluster whose state is not ok, say); the generic reason when absent. */
  redisNotReadyReason?: () => string | null;
  /** True once the process has started to shut down. */
  draining: () => boolean;
  graphs: () => string[];
  /** Prometheus text for /metrics. */
  metrics: () => Promise<string>;
}

const Detail = Type.Object({ detail: Type.String() });

/** Why this process should get no traffic now, or null when it is ready. */
export function notReadyReason(opts: Pick<SystemRoutesOptions, 'redisReady' | 'redisNotReadyReason' | 'draining'>): string | null {
  if (opts.draining()) return 'Not ready: this process is shutting down.';
  if (!opts.redisReady()) return opts.redisNotReadyReason?.() ?? 'Not ready: Redis is unreachable.';
  return null;
}

export async function systemRoutes(app: FastifyInstance, opts: SystemRoutesOptions): Promise<void> {
  const liveness = {
    // Load balancers poll these without credentials: the routes API keys never guard.
    config: { public: true },
    schema: {
      tags: ['system'],
      security: [],
      response: { 200: Type.Object({ ok: Type.Boolean(), redis: Type.Boolean() }) },
    },
  };
  const live = async () => ({ ok: true, redis: opts.redisReady() });
  app.get('/ok', liveness, live);
  app.get('/health', liveness, live);

  app.get(
    '/ready',
    {
      config: { public: true },
      schema: { tags: ['system'], security: [], response: { 200: Type.Object({ ready: Type.Boolean() }), 503: Detail } },
    },
    async (_req, reply) => {
      const reason = notReadyReason(opts);
      return reason === null ? { ready: true } : reply.code(503).send({ detail: reason });
    },
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
