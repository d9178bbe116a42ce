// A custom auth module, as LangGraph's `auth` in langgraph.json: an `Auth` instance from
// `@langchain/langgraph-sdk/auth` whose `authenticate` callback turns a request into an identity
// and whose `on(...)` handlers allow, refuse or filter each action on a resource.
//
// The instance is recognised as the LangGraph server recognises it, by the handler table it keeps
// (`~handlerCache`: `authenticate` and `callbacks` by event name); nothing else of the SDK is
// relied on, and Warren does not depend on the SDK at run time. The semantics follow LangGraph:
//  - `authenticate(request)` gets a web-standard Request (method, URL, headers; no body: it runs
//    before the body is read) and answers a string (the user) or `{identity, permissions, ...}`;
//    Warren also reads `role: 'admin'` (anything else is a user).
//  - a thrown `HTTPException` (any error with a numeric `status` and `headers`) answers its
//    status with `{detail: message}` and its headers; any other error is a 500.
//  - handlers are looked up as `resource:action`, then `resource`, then `*:action`, then `*`;
//    none found, or a result of null, undefined or true, allows with no filter; false refuses
//    (403); an object is a metadata filter; a handler may change `value` (its `metadata` on
//    create), and the caller keeps the changed object.
//  - without an `authenticate` callback every request is the anonymous admin and handlers are
//    not consulted, as LangGraph skips them when no user was authenticated.
import type { FastifyRequest } from 'fastify';
import { ConfigError, HttpStatusError } from '../errors.js';
import { AccessRefusedError, AuthModuleInvalidError } from './auth.errors.js';
import type { AccessFilter, AccessPolicy, AccessRequest } from './access.js';
import { ANONYMOUS, type Identity } from './identity.js';

type Authenticate = (request: Request) => unknown;
type Handler = (event: Record<string, unknown>) => unknown;

interface HandlerTable {
  authenticate?: Authenticate;
  callbacks?: Record<string, Handler>;
}

export interface CustomAuth {
  /** The identity for a request; throws what the module threw, as an HTTP error. */
  authenticate(request: FastifyRequest): Promise<Identity>;
  policy: AccessPolicy;
  /** False when the module has no `authenticate`: every request is the anonymous admin. */
  authenticates: boolean;
}

/** The handler table of an `Auth` instance, or null when `value` is not one. */
function handlerTable(value: unknown): HandlerTable | null {
  if (value === null || typeof value !== 'object' || !('~handlerCache' in value)) return null;
  const table = (value as { '~handlerCache': unknown })['~handlerCache'];
  if (table === null || typeof table !== 'object') return null;
  const { authenticate, callbacks } = table as { authenticate?: unknown; callbacks?: unknown };
  if (authenticate !== undefined && typeof authenticate !== 'function') return null;
  if (callbacks !== undefined && (callbacks === null || typeof callbacks !== 'object')) return null;
  return table as HandlerTable;
}

/** LangGraph's HTTPException, recognised by shape (a module may bundle its own copy of the SDK). */
function asHttpError(err: unknown): unknown {
  if (err === null || typeof err !== 'object' || !('status' in err) || !('headers' in err)) return err;
  const { status, headers, message } = err as { status: unknown; headers: unknown; message?: unknown };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return err;
  const plain: Record<string, string> = {};
  if (headers !== null && typeof headers === 'object') {
    const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
    for (const [name, value] of entries) if (typeof value === 'string') plain[name] = value;
  }
  return new HttpStatusError(status, typeof message === 'string' && message !== '' ? message : 'Unauthorized', plain);
}

/** The request as the web-standard Request LangGraph's `authenticate` receives. */
export function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const host = typeof request.headers.host === 'string' && request.headers.host !== '' ? request.headers.host : 'localhost';
  return new Request(new URL(request.url, `${request.protocol}://${host}`), { method: request.method, headers });
}

const USER_LIMIT = 256;

/** LangGraph's two answer shapes as an Identity; anything else is the module's fault (500). */
function toIdentity(answer: unknown): Identity {
  if (typeof answer === 'string') {
    if (answer === '' || answer.length > USER_LIMIT) throw new AuthModuleInvalidError('The auth module answered an empty or over-long identity.');
    return { user: answer, role: 'user', permissions: [] };
  }
  if (answer !== null && typeof answer === 'object' && typeof (answer as { identity?: unknown }).identity === 'string') {
    const { identity, permissions, role, ...details } = answer as Record<string, unknown> & { identity: string };
    if (identity === '' || identity.length > USER_LIMIT) throw new AuthModuleInvalidError('The auth module answered an empty or over-long identity.');
    const granted = Array.isArray(permissions) ? permissions.filter((p): p is string => typeof p === 'string') : [];
    return { user: identity, role: role === 'admin' ? 'admin' : 'user', permissions: granted, details };
  }
  throw new AuthModuleInvalidError('The auth module answered neither a string nor an object with a string `identity`.');
}

/** The `user` handlers see: what `authenticate` answered, with LangGraph's defaults filled in. */
function handlerUser(identity: Identity): Record<string, unknown> {
  const details = identity.details ?? {};
  return {
    ...details,
    identity: identity.user,
    permissions: identity.permissions,
    display_name: details.display_name ?? identity.user,
    is_authenticated: details.is_authenticated ?? true,
    role: identity.role,
  };
}

function handlerPolicy(table: HandlerTable): AccessPolicy {
  const find = (resource: string, action: string): [string, Handler] | undefined => {
    // Read at each check: a module may add handlers after it is loaded.
    const callbacks = table.callbacks ?? {};
    for (const key of [`${resource}:${action}`, resource, `*:${action}`, '*']) {
      const handler = Object.hasOwn(callbacks, key) ? callbacks[key] : undefined;
      if (typeof handler === 'function') return [key, handler];
    }
    return undefined;
  };
  return {
    async check({ identity, resource, action, value }: AccessRequest): Promise<AccessFilter> {
      const found = find(resource, action);
      if (!found) return null;
      const [key, handler] = found;
      let result: unknown;
      try {
        result = await handler({ event: `${resource}:${action}`, resource, action, value, permissions: identity.permissions, user: handlerUser(identity) });
      } catch (err) {
        throw asHttpError(err);
      }
      if (result === null || result === undefined || result === true) return null;
      if (result === false) throw new AccessRefusedError(`Forbidden: the auth handler for "${key}" refused ${resource}:${action}.`);
      if (typeof result !== 'object' || Array.isArray(result)) {
        throw new AuthModuleInvalidError(`The auth handler for "${key}" answered a ${typeof result}; it must answer a filter object, null, undefined or a boolean.`);
      }
      return result as Record<string, unknown>;
    },
  };
}

/** The custom auth for an export already loaded (see importModuleExport in src/config/module-loader.ts). */
export function customAuthFrom(exported: unknown, spec: string): CustomAuth {
  const table = handlerTable(exported);
  if (!table) throw new ConfigError(`${spec}: the export is not an Auth instance from @langchain/langgraph-sdk/auth.`);
  const authenticate = table.authenticate;
  if (!authenticate) {
    return { authenticates: false, authenticate: async () => ANONYMOUS, policy: { check: async () => null } };
  }
  return {
    authenticates: true,
    async authenticate(request) {
      let answer: unknown;
      try {
        answer = await authenticate(webRequest(request));
      } catch (err) {
        throw asHttpError(err);
      }
      return toIdentity(answer);
    },
    policy: handlerPolicy(table),
  };
}
