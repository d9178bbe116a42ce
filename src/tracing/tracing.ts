// OpenTelemetry traces: on when a collector is configured (config.yaml's `tracing.endpoint`, or
// the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT), exported over OTLP/HTTP (JSON). Off, only
// the API's no-op tracer runs: spans are never recorded and jobs carry no trace context.
import { context, propagation, trace, ROOT_CONTEXT, SpanStatusCode, type Attributes, type Context, type Span, type SpanKind, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingConfig } from '../config/app-config.schemas.js';
import { VERSION } from '../version.js';

export interface Tracing {
  readonly enabled: boolean;
  /** Sends the spans still buffered, then stops. Idempotent. */
  shutdown(): Promise<void>;
}

/** The collector's traces URL, or null when tracing is off. `env` means: the exporter reads it. */
export function tracesTarget(config: TracingConfig, env: NodeJS.ProcessEnv = process.env): string | 'env' | null {
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  if (config.endpoint) return `${config.endpoint.replace(/\/+$/, '')}/v1/traces`;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) return 'env';
  return null;
}

/**
 * Starts tracing for this process (`role`: api or worker), registering the global tracer
 * provider, the AsyncLocalStorage context manager and the W3C trace-context propagator.
 */
let exporting = 0;
/** Whether spans go anywhere: with none, callers can skip the work of making them. */
export const tracingActive = (): boolean => exporting > 0;

export function startTracing(config: TracingConfig, role: 'api' | 'worker', instanceId: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  const target = tracesTarget(config, env);
  if (target === null) return { enabled: false, shutdown: async () => {} };
  exporting += 1;
  const exporter = new OTLPTraceExporter(target === 'env' ? {} : { url: target });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? `${config.service_name}-${role}`,
      'service.version': VERSION,
      'service.instance.id': instanceId,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  let stopping: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown: () =>
      (stopping ??= (async () => {
        exporting -= 1;
        await provider.shutdown();
        // Another start in this process (tests) registers afresh.
        trace.disable();
        context.disable();
        propagation.disable();
      })()),
  };
}

export const tracer = (): Tracer => trace.getTracer('warren', VERSION);

/**
 * Runs `fn` inside a new span (active for what `fn` calls), child of `parent` (the active context
 * by default); the span ends when `fn` settles, with the error recorded if it threw.
 */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>, parent: Context = context.active()): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The W3C trace context of `ctx` (`traceparent`, maybe `tracestate`); undefined when none is recorded. */
export function traceCarrier(ctx: Context = context.active()): { traceparent: string; tracestate?: string } | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (!carrier.traceparent) return undefined;
  return { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) };
}

/** The context a carrier (job data, request headers) names as the parent; the root when none. */
export function contextFrom(carrier: Record<string, string | string[] | undefined> | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}
