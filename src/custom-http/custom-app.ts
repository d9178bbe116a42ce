// A project's `http.app` (langgraph.json), loaded as graphs are (src/config/module-loader.ts):
// any object with `fetch(Request)`; a Hono app, as LangGraph's server takes, also gets its
// middleware put in front of Warren's LangGraph routes. LangGraph mounts the app before its own
// routes in one Hono router, so a middleware's `next()` reaches the built-in route; here Warren's
// routes are Fastify's, so the app's not-found handler stands for `next()`: while a request is
// handed to the app, it calls back into Warren (see `continueWith`).
import { AsyncLocalStorage } from 'node:async_hooks';
import { importModuleExport } from '../config/module-loader.js';
import { ConfigError } from '../errors.js';

/** What the app's not-found handler receives: Hono's context, as much of it as Warren reads. */
export interface AppContext {
  req: { raw: Request; text(): Promise<string> };
}

/** Where a request the app does not answer goes: Warren's own route, or Warren's 404. */
export type Continuation = (c: AppContext) => Promise<Response>;

export interface CustomApp {
  /** Hands `request` to the app; `next` answers what the app leaves to Warren. */
  handle(request: Request, next: Continuation): Promise<Response>;
  /** True for a Hono app: its middleware can run in front of Warren's routes. */
  readonly hasMiddleware: boolean;
}

type FetchApp = { fetch(request: Request, env?: unknown): Response | Promise<Response> };
type HonoLike = FetchApp & { notFound(handler: (c: AppContext) => Promise<Response>): unknown };

const isObject = (v: unknown): v is Record<string, unknown> => (typeof v === 'object' || typeof v === 'function') && v !== null;
const isFetchApp = (v: unknown): v is FetchApp => isObject(v) && typeof v.fetch === 'function';
// Hono's own marker for its apps is its router and `notFound`; a plain fetch handler has neither.
const isHonoLike = (v: unknown): v is HonoLike => isFetchApp(v) && typeof (v as Record<string, unknown>).notFound === 'function' && 'router' in v;

/** A 404 in Warren's `{detail}` shape, for what neither the app nor Warren serves. */
export function notFoundResponse(method: string, path: string): Response {
  return Response.json({ detail: `Not found: ${method} ${path.split('?')[0]}` }, { status: 404 });
}

/**
 * An error that carries its own answer (Hono's `HTTPException`, from whichever copy of Hono
 * threw it) becomes that answer, not Warren's 500. Hono apps do this themselves.
 */
async function withStatusErrors(call: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await call();
  } catch (err) {
    const answer = isObject(err) && typeof err.getResponse === 'function' ? (err.getResponse as () => unknown)() : undefined;
    if (answer instanceof Response) return answer;
    throw err;
  }
}

export function wrapCustomApp(exported: unknown, spec: string): CustomApp {
  if (!isFetchApp(exported)) {
    throw new ConfigError(`http.app "${spec}" must export an app with a fetch(Request) method (a Hono app, say); it is ${exported === null ? 'null' : typeof exported}.`);
  }
  const app = exported;
  if (!isHonoLike(app)) {
    // No middleware to put in front: the app answers its own paths, and Warren never asks it about its own.
    return { hasMiddleware: false, handle: async (request) => withStatusErrors(() => app.fetch(request)) };
  }
  // The continuation of the request in flight: the app's not-found handler runs inside its fetch.
  const pending = new AsyncLocalStorage<Continuation>();
  app.notFound(async (c) => {
    const next = pending.getStore();
    return next ? next(c) : notFoundResponse(c.req.raw.method, new URL(c.req.raw.url).pathname);
  });
  return { hasMiddleware: true, handle: async (request, next) => pending.run(next, async () => app.fetch(request)) };
}

export async function loadCustomApp(spec: string, configDir: string): Promise<CustomApp> {
  return wrapCustomApp(await importModuleExport(spec, configDir, 'http.app'), spec);
}
