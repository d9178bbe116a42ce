// Per-request metrics (route pattern, method, status, duration) and, when tracing is on, a
// server span per request that the route's handler runs inside: the spans it starts (enqueueing
// a run) are its children, and the job carries the trace on to the worker.
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { contextFrom, tracer } from '../../tracing/tracing.js';

export interface ObservabilityOptions {
  observeRequest: (route: string, method: string, status: number, seconds: number) => void;
  tracing: boolean;
}

/** Scrapes and probes are counted, not traced: they would bury the traces that matter. */
const UNTRACED = new Set(['/ok', '/metrics']);
/** Unmatched URLs share one label: raw URLs would make a series per scanner probe. */
const UNMATCHED = 'unmatched';

export function registerObservability(app: FastifyInstance, options: ObservabilityOptions): void {
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const route = request.routeOptions.url ?? UNMATCHED;
    let span: Span | undefined;
    if (options.tracing && !UNTRACED.has(route)) {
      span = tracer().startSpan(
        `${request.method} ${route}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': request.url.split('?')[0] } },
        contextFrom(request.headers),
      );
      spans.set(request, span);
    }
    // `close` also comes for hijacked replies (streams) and clients that went away.
    reply.raw.once('close', () => {
      const status = reply.raw.statusCode;
      options.observeRequest(route, request.method, status, (performance.now() - started) / 1000);
      if (!span) return;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  });

  if (!options.tracing) return;
  // Each handler runs inside its request's span, so what it calls sees it as the active context.
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function traced(this: FastifyInstance, request, reply) {
      const span = spans.get(request);
      if (!span) return handler.call(this, request, reply);
      return context.with(trace.setSpan(context.active(), span), () => handler.call(this, request, reply));
    };
  });
}
