// What a request says about where it comes from, read the way DeerFlow documents it: the TCP
// peer is the client, unless the peer is a trusted proxy; only then are its `X-Real-IP`,
// `X-Forwarded-Proto` and `X-Forwarded-Host` believed (`X-Forwarded-For` never: its first hop is
// the client's to write). Used for sign-in throttling, the cookie's `Secure` flag and the
// same-origin checks against cross-site requests.
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ConfigError } from '../errors.js';

type RequestView = Pick<FastifyRequest, 'headers' | 'protocol'> & { socket: { remoteAddress?: string | undefined } };

export interface RequestOrigins {
  /** The client's address: the peer's, or a trusted proxy's `X-Real-IP`. */
  clientAddress(request: RequestView): string;
  /** Whether the browser reached us over HTTPS (directly, or at a trusted proxy). */
  isHttps(request: RequestView): boolean;
  /** `scheme://host[:port]` of the URL the browser asked for, or null when the Host is unusable. */
  ownOrigin(request: RequestView): string | null;
  /**
   * Whether a browser request comes from a page we serve: its `Origin` (or, lacking one, its
   * `Referer`) is our own origin or one of `cors.origins`. Null: the request names neither.
   */
  sameOrigin(request: RequestView): boolean | null;
}

const first = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value[0] : value;
  const head = text?.split(',')[0]?.trim();
  return head ? head : undefined;
};

/** `scheme://host[:port]` with the default port left out, or null for anything else (paths, credentials, other schemes). */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null; // Not a URL: never an origin we allow.
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return url.origin.toLowerCase();
}

export function createRequestOrigins(trustedProxies: readonly string[], allowedOrigins: readonly string[]): RequestOrigins {
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new ConfigError(`auth.accounts.trusted_proxies: "${entry}" is not an address or a CIDR range.`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(bits), type);
  }
  // `*` lets any site call the API with CORS, but never counts as our own origin.
  const allowed = new Set(allowedOrigins.filter((o) => o !== '*').flatMap((o) => normalizeOrigin(o) ?? []));

  const peer = (request: RequestView) => (request.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');
  const fromTrustedProxy = (request: RequestView) => {
    const address = peer(request);
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  const forwarded = (request: RequestView, name: string) => (fromTrustedProxy(request) ? first(request.headers[name]) : undefined);

  const isHttps = (request: RequestView) => (forwarded(request, 'x-forwarded-proto') ?? request.protocol).toLowerCase() === 'https';
  const ownOrigin = (request: RequestView) => {
    const host = forwarded(request, 'x-forwarded-host') ?? first(request.headers.host);
    return host ? normalizeOrigin(`${isHttps(request) ? 'https' : 'http'}://${host}`) : null;
  };

  return {
    clientAddress: (request) => {
      const real = forwarded(request, 'x-real-ip');
      return real && isIP(real) !== 0 ? real : peer(request) || 'unknown';
    },
    isHttps,
    ownOrigin,
    sameOrigin(request) {
      const origin = first(request.headers.origin);
      const referer = first(request.headers.referer);
      const claimed = origin ?? referer;
      if (claimed === undefined) return null;
      // A Referer is a whole URL: its origin is what counts. `Origin: null` (a sandboxed frame) is never ours.
      const normalized = origin !== undefined ? normalizeOrigin(origin) : normalizeOrigin(referer ? safeOrigin(referer) : '');
      if (normalized === null) return false;
      return allowed.has(normalized) || normalized === ownOrigin(request);
    },
  };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return ''; // Not a URL: normalizeOrigin refuses the empty string.
  }
}
