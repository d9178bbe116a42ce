// buildApp(deps): the HTTP plumbing, then the runtime and gateway route groups. It never
// listens; src/main.ts (and the tests) decide that.
import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import { QUEUE_BOARD_PREFIX } from './admin/queue-board.js';
import { OPEN_AUTHENTICATOR, type Authenticator } from './auth/authenticator.js';
import { ANONYMOUS_USER } from './auth/identity.js';
import type { AppConfig, RateLimitsConfig } from './config/app-config.schemas.js';
import { RateLimitedError } from './http/http.errors.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerCors, type CorsOptions } from './http/plugins/cors.js';
import type { CustomHttp } from './custom-http/custom-http.plugin.js';
import { registerObservability, type ObservabilityOptions } from './http/plugins/observability.js';
import { registerOpenApi } from './http/plugins/openapi.js';
import { registerRecordGate } from './http/plugins/record-gate.js';
import type { RecordAccess } from './auth/record-access.js';
import { RequestLogController } from './http/request-log.js';
import { genRequestId, INSTANCE_HEADER, REQUEST_ID_HEADER } from './http/request-id.js';
import { systemRoutes } from './http/system.routes.js';
import { logStreamOption, loggerOptions } from './logger.js';
import { runtimeRoutes } from './runtime/runtime.plugin.js';
import type { RuntimeDeps } from './runtime/runtime-deps.js';
import type { RateLimitBacking } from './store/rate-limit.js';
import { VERSION } from './version.js';

export interface AppDeps {
  config: AppConfig;
  runtime: RuntimeDeps;
  /** Who may reach which record (checked for every route that names one). */
  recordAccess: RecordAccess;
  /** Registers the gateway route group (mounted at /api). */
  gateway?: (app: FastifyInstance) => Promise<void>;
  /** Registers the generative UI routes; mounted at the server root and at /api/langgraph, as LangGraph's clients reach either. */
  ui?: (app: FastifyInstance) => Promise<void>;
  /** Registers DeerFlow's sign-in routes (mounted at /api/v1/auth). */
  accounts?: (app: FastifyInstance) => Promise<void>;
  /** Registers the queue dashboard (mounted at /admin/queues); absent when `admin.queues` is off. */
  queueBoard?: (app: FastifyInstance) => Promise<void>;
  redisReady: () => boolean;
  /** Why Redis is not ready, for /ready (see SystemRoutesOptions). */
  redisNotReadyReason?: () => string | null;
  /** True once the process drains (readiness answers 503). */
  draining?: () => boolean;
  /** Renders /metrics. */
  metrics: () => Promise<string>;
  /** Per-request metrics and traces. */
  observability?: ObservabilityOptions;
  logLevel: string;
  /** Names this API process in the `X-Warren-Instance` header (which replica served a request). */
  instanceId: string;
  /** JSON bodies above this size get 413. */
  bodyLimitBytes?: number;
  /** Who each request acts for (API keys, JWTs or a custom module); absent leaves the API open. */
  auth?: Authenticator;
  /** Per-user request limits counted in Redis; absent (or not enabled) counts nothing. */
  rateLimits?: { config: RateLimitsConfig; backing: RateLimitBacking };
  timeouts?: Partial<HttpTimeouts>;
  /** The project's `http` (langgraph.json): its app, route switches and configurable headers. */
  customHttp?: CustomHttp;
  /** CORS as the project's `http.cors` says, in place of config.yaml's `cors`. */
  cors?: CorsOptions;
  /** Receives the log lines instead of stdout (tests read them). */
  logStream?: DestinationStream;
  /** Values masked in every log line (model keys, API keys and the like). */
  logSecrets?: readonly string[];
}

export interface HttpTimeouts {
  /** Whole request (headers and body) must arrive within this; a trickling upload gets 408. */
  requestMs: number;
  /** A socket that moves no byte either way for this long is closed (a client that stopped reading). */
  idleMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = Object.freeze({
  // 100 MiB (the upload limit) arrives in two minutes at about 1 MB/s.
  requestMs: 120_000,
  // Longer than anything that is legitimately silent: an upload whose documents convert one
  // after another, a cancel that waits for its run to stop. Streams send heartbeats long before,
  // waits send whitespace every second, and WebSockets turn the socket timeout off (ws does).
  idleMs: 600_000,
});

/** Node's own timers for the limits above. */
function serverTimeouts(deps: AppDeps) {
  const requestMs = deps.timeouts?.requestMs ?? DEFAULT_HTTP_TIMEOUTS.requestMs;
  // Never shorter than a few heartbeats, whatever the config says.
  const idleMs = Math.max(deps.timeouts?.idleMs ?? DEFAULT_HTTP_TIMEOUTS.idleMs, deps.runtime.settings.heartbeatMs * 3);
  return {
    requestTimeout: requestMs,
    connectionTimeout: idleMs,
    http: {
      requestTimeout: requestMs,
      headersTimeout: Math.min(60_000, requestMs),
      // Node checks request deadlines on this interval (30 s by default): a quarter of the
      // limit keeps a trickling request from outliving its limit by much.
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestMs / 4))),
    },
  };
}

const BODY_AJV = { removeAdditional: false, useDefaults: true, coerceTypes: false, allErrors: false } as const;
// `?stream_mode=values` means `["values"]`, `?limit=5` the number 5.
const URL_AJV = { ...BODY_AJV, coerceTypes: 'array' } as const;

type RouteSchemaDef = { schema: unknown; method: string; url: string; httpPart?: string };
type BuildPart = (route: RouteSchemaDef) => unknown;

/**
 * Fastify's validator builder, twice: a body keeps its values (`input: null` stays null, an
 * unknown key is a 422 naming it), while the URL's strings are coerced to the schema's types.
 */
function splitValidators(): BuildCompilerFromPool {
  const pool = AjvCompiler();
  const build = (...[externalSchemas, options]: Parameters<BuildCompilerFromPool>) => {
    const plugins = options?.plugins ? { plugins: options.plugins } : {};
    // Fastify calls the compiler with the route's definition (its types say a bare schema).
    const body = pool(externalSchemas, { ...plugins, customOptions: { ...BODY_AJV } }) as unknown as BuildPart;
    const url = pool(externalSchemas, { ...plugins, customOptions: { ...URL_AJV } }) as unknown as BuildPart;
    return (route: RouteSchemaDef) => (route.httpPart === 'body' ? body(route) : url(route));
  };
  return build as unknown as BuildCompilerFromPool;
}

/** Fastify's answer to a URL it cannot decode, in our `{detail}` shape. */
function badUrl(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void reply.code(400).send({ detail: 'The URL is not validly percent-encoded.' });
}

/**
 * Per-user limits with @fastify/rate-limit, counted in Redis so every replica shares one count.
 * Its hook is added to each route (route hooks run after the app's, so after auth): a user is
 * counted by name; the anonymous user (no auth, or a plain API key) by address, since one
 * shared count for everyone would let one client starve the rest. Public routes are never counted.
 */
async function registerRateLimits(app: FastifyInstance, config: RateLimitsConfig, backing: RateLimitBacking, customHttp: CustomHttp | undefined): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: config.max,
    timeWindow: config.time_window_seconds * 1000,
    redis: backing.redis,
    nameSpace: backing.nameSpace,
    skipOnError: config.allow_on_redis_error,
    keyGenerator: (request) => (request.identity.user === ANONYMOUS_USER ? `ip:${request.ip}` : `user:${request.identity.user}`),
    // A request the project's middleware passed on to Warren's route was counted on its way in.
    allowList: (request) => request.routeOptions.config.public === true || customHttp?.isReentry(request) === true,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`Too many requests: at most ${context.max} per ${config.time_window_seconds} s for each user. Retry in ${context.after}.`),
  });
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      ...loggerOptions(deps.logLevel, 'warren-api', [...(deps.logSecrets ?? [])]),
      ...(deps.logStream ? { stream: deps.logStream } : logStreamOption()),
    },
    ...serverTimeouts(deps),
    genReqId: genRequestId,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: deps.bodyLimitBytes ?? 10 * 1024 * 1024,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // Ids may be 128 characters (find-my-way's default cap of 100 would answer 414, not 422),
    // and upload file names up to 255 bytes, percent-encoded.
    routerOptions: { maxParamLength: 1024 },
    // A URL with malformed percent-encoding (`%c0%ae`) never reaches a route: answer it as {detail} too.
    frameworkErrors: badUrl,
    forceCloseConnections: 'idle',
    // Bodies are validated as sent (no coercion, no key dropped); querystrings and params are
    // strings on the wire, so they alone are coerced.
    schemaController: { compilersFactory: { buildValidator: splitValidators() } },
  });

  registerErrorHandling(app);
  // Before any route is added: its onRoute hook wraps every handler in the request's span.
  if (deps.observability) registerObservability(app, deps.observability);
  // Set early (onRequest), so hijacked streaming replies carry them too.
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    void reply.header(INSTANCE_HEADER, deps.instanceId);
  });
  await registerCors(app, deps.cors ?? deps.config.cors);
  await app.register(websocket, { options: { maxPayload: 10 * 1024 * 1024 } });
  // After CORS, whose hook answers browsers' preflights (they never carry a key) on its own, and
  // after the WebSocket plugin, whose hooks close the socket of an upgrade that is refused.
  const auth = deps.auth ?? OPEN_AUTHENTICATOR;
  registerAuth(app, auth, deps.customHttp?.handedOverIdentity);
  // After auth, so a request is counted against the user it authenticated as.
  if (deps.rateLimits?.config.enabled) await registerRateLimits(app, deps.rateLimits.config, deps.rateLimits.backing, deps.customHttp);
  // After auth: the gate checks the identity it set against the records a route names.
  registerRecordGate(app, deps.recordAccess);
  await registerOpenApi(app, VERSION, { auth: auth.required });

  await app.register(systemRoutes, {
    version: VERSION,
    redisReady: deps.redisReady,
    ...(deps.redisNotReadyReason ? { redisNotReadyReason: deps.redisNotReadyReason } : {}),
    draining: deps.draining ?? (() => false),
    graphs: () => deps.runtime.graphs.ids(),
    metrics: deps.metrics,
  });
  const customHttp = deps.customHttp;
  await app.register(
    async (scope) => {
      customHttp?.front(scope);
      await runtimeRoutes(scope, deps.runtime);
    },
    { prefix: '/api/langgraph' },
  );
  if (deps.ui) {
    const ui = deps.ui;
    await app.register(async (scope) => ui(scope));
    await app.register(async (scope) => ui(scope), { prefix: '/api/langgraph' });
  }
  if (deps.gateway) {
    const gateway = deps.gateway;
    await app.register(async (scope) => gateway(scope), { prefix: '/api' });
  }
  if (deps.accounts) {
    const accounts = deps.accounts;
    await app.register(async (scope) => accounts(scope), { prefix: '/api/v1/auth' });
  }
  if (deps.queueBoard) {
    const queueBoard = deps.queueBoard;
    await app.register(async (scope) => queueBoard(scope), { prefix: QUEUE_BOARD_PREFIX });
  }
  // Last, and only wildcards: every route above is matched before them.
  await customHttp?.catchAll(app);
  return app;
}
