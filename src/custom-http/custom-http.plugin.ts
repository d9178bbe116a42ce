// A project's `http` (langgraph.json) in the API process. The app answers paths no Warren route
// has, at the root and under /api/langgraph (where it sees LangGraph's paths, without the
// prefix); its middleware runs in front of Warren's LangGraph routes, and what it leaves to
// them goes back into Fastify by `inject` (in-process, streamed), so the middleware sees the
// real response and may add headers to it. Warren's other routes are static and parametric,
// which find-my-way always prefers to the wildcards here: they are never shadowed. Auth and
// rate limits run on every request as on any route, once: the re-entry is not counted again, and
// acts for the identity the request authenticated as when it arrived (so credentials are checked
// once, before the middleware; a middleware that rewrites them does not change who it acts for).
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Identity } from '../auth/identity.js';
import type { ProjectHttp } from '../config/langgraph-json.schemas.js';
import { notFoundResponse, type AppContext, type Continuation, type CustomApp } from './custom-app.js';
import { addConfigurableHeaders, headerFilter, type HeaderFilter } from './configurable-headers.js';
import { nodeHeaders, pathUnder, sendWebResponse, toWebRequest } from './web-exchange.js';

/** Where Warren serves the LangGraph API. */
export const LANGGRAPH_PREFIX = '/api/langgraph';
const REENTRY_HEADER = 'x-warren-custom-http-reentry';
// HEAD comes with GET (Fastify adds it); OPTIONS is CORS's preflight route when CORS is on.
const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** LangGraph's route groups that `http.disable_*` switches off. */
type RouteGroup = 'assistants' | 'threads' | 'runs' | 'store';

function routeGroup(routeUrl: string): RouteGroup | null {
  const path = routeUrl.slice(LANGGRAPH_PREFIX.length);
  if (/^\/runs(\/|$)|^\/threads\/:thread_id\/runs(\/|$)/.test(path)) return 'runs';
  const first = /^\/(assistants|threads|store)(\/|$)/.exec(path);
  return first ? (first[1] as RouteGroup) : null;
}

function disabledGroups(http: ProjectHttp | undefined): ReadonlySet<RouteGroup> {
  const groups: RouteGroup[] = ['assistants', 'threads', 'runs', 'store'];
  return new Set(groups.filter((group) => http?.[`disable_${group}`] === true));
}

export interface CustomHttp {
  /** The wildcard routes (root and /api/langgraph): registered once, at the root. */
  catchAll(app: FastifyInstance): Promise<void>;
  /** The app's middleware, switched-off groups and configurable headers, in front of the LangGraph routes. */
  front(scope: FastifyInstance): void;
  /** Warren's own re-entry after the app's middleware: already counted by the rate limits. */
  isReentry(request: FastifyRequest): boolean;
  /** The identity the request this re-entry continues authenticated as; undefined for any other request. */
  handedOverIdentity(request: FastifyRequest): Identity | undefined;
}

/** The signal that aborts when the client goes away before its answer is complete. */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

const hasBody = (method: string) => method !== 'GET' && method !== 'HEAD';

export function createCustomHttp(http: ProjectHttp | undefined, app: CustomApp | undefined): CustomHttp {
  const token = randomBytes(32).toString('hex');
  const disabled = disabledGroups(http);
  const headers: HeaderFilter | null = http?.configurable_headers ? headerFilter(http.configurable_headers) : null;

  /** In-flight re-entries (the header names one): the identity each continues with. */
  const handedOver = new Map<string, Identity>();

  /** The handover id of a genuine re-entry (its header starts with this process's token), else null. */
  const reentryOf = (request: FastifyRequest): string | null => {
    const given = request.headers[REENTRY_HEADER];
    if (typeof given !== 'string' || given.length <= token.length) return null;
    const claimed = Buffer.from(given.slice(0, token.length));
    return timingSafeEqual(claimed, Buffer.from(token)) ? given.slice(token.length) : null;
  };
  const isReentry = (request: FastifyRequest): boolean => reentryOf(request) !== null;

  /** The request the app's middleware passed on, into Warren's own route, answered as it streams. */
  const reenter = (root: FastifyInstance, request: FastifyRequest, signal: AbortSignal): Continuation => {
    return async (c: AppContext) => {
      const raw = c.req.raw;
      const url = new URL(raw.url);
      const payload = hasBody(raw.method) ? await c.req.text() : undefined;
      const handover = randomUUID();
      handedOver.set(handover, request.identity);
      // Resolves once Warren's route has begun its answer: auth has long run by then.
      const res = await root
        .inject({
          method: raw.method as HTTPMethods,
          url: `${LANGGRAPH_PREFIX}${url.pathname}${url.search}`,
          headers: { ...nodeHeaders(raw.headers), [REENTRY_HEADER]: `${token}${handover}`, 'x-request-id': request.id },
          remoteAddress: request.ip,
          payloadAsStream: true,
          ...(payload === undefined ? {} : { payload }),
        })
        .finally(() => handedOver.delete(handover));
      // A client that left ends Warren's route too (a stream stops following its run).
      const stop = () => (res.raw.res as unknown as { destroy(): void }).destroy();
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      const status = res.statusCode;
      const body = status === 204 || status === 304 || raw.method === 'HEAD' ? null : (Readable.toWeb(res.stream()) as ReadableStream);
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'connection') continue;
        for (const one of Array.isArray(value) ? value : [String(value)]) out.append(name, one);
      }
      return new Response(body, { status, headers: out });
    };
  };

  /** Hands the request to the app; what it leaves goes to `next`. */
  const toApp = async (request: FastifyRequest, reply: FastifyReply, prefix: string, next: (signal: AbortSignal) => Continuation, body: Readable | string | null) => {
    const signal = clientGone(reply);
    const web = toWebRequest(request, { pathAndQuery: pathUnder(request.url, prefix), body, signal });
    return sendWebResponse(reply, await (app as CustomApp).handle(web, next(signal)));
  };
  const warren404 = (): Continuation => async (c) => notFoundResponse(c.req.raw.method, new URL(c.req.raw.url).pathname);

  return {
    isReentry,
    handedOverIdentity(request) {
      const handover = reentryOf(request);
      return handover === null ? undefined : handedOver.get(handover);
    },

    async catchAll(root) {
      if (!app) return;
      await root.register(async (scope) => {
        // The app reads its own bodies, whatever their type, as they arrive.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
        for (const prefix of ['', LANGGRAPH_PREFIX]) {
          scope.route({
            method: METHODS,
            url: `${prefix}/*`,
            schema: { hide: true },
            handler: async (request, reply) => toApp(request, reply, prefix, warren404, (request.body as Readable | undefined) ?? null),
          });
        }
      });
    },

    front(scope) {
      scope.addHook('preValidation', async (request, reply) => {
        // A WebSocket's messages are not HTTP requests an app's middleware could see.
        if (request.ws) return;
        if (isReentry(request)) {
          if (headers) addConfigurableHeaders(request, headers);
          return;
        }
        const group = routeGroup(request.routeOptions.url ?? '');
        const off = group !== null && disabled.has(group);
        if (off && !app) return sendWebResponse(reply, notFoundResponse(request.method, request.url));
        if (app?.hasMiddleware || off) {
          const body = request.body === undefined ? null : JSON.stringify(request.body);
          return toApp(request, reply, LANGGRAPH_PREFIX, off ? warren404 : (signal) => reenter(scope, request, signal), body);
        }
        if (headers) addConfigurableHeaders(request, headers);
        return;
      });
    },
  };
}
