// Keeps Warren's outbound requests (the agent's web_fetch, MCP over HTTP, webhooks) on the public
// internet. A model that reads a hostile page can be told to fetch http://127.0.0.1:6379/ or a
// cloud metadata address; Warren sits next to Redis and maybe inside a VPC. Two layers:
// - `assertPublicHost`: a clear early refusal, for the URL as given;
// - `guardedAgent`: the connection itself resolves the name once and connects only to an
//   address that passed the check, so a DNS answer that changes between the two (rebinding)
//   is caught where it matters;
// - `guardedFetch`: both, with redirects followed by hand so every hop is checked again.
// Address classes come from ipaddr.js, a maintained library, not from our own range table.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { NetHostPrivateError, NetHostUnresolvedError, NetSchemeUnsupportedError, NetTooManyRedirectsError } from './net.errors.js';

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  const last4 = (from: number) => new ipaddr.IPv4(bytes.slice(from, from + 4));
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  switch (address.range()) {
    case 'rfc6052': // NAT64, 64:ff9b::/96
    case 'rfc6145': // SIIT, ::ffff:0:0:0/96
      return last4(12);
    case '6to4': // 2002:AABB:CCDD::/48
      return last4(2);
  }
  // IPv4-compatible (deprecated) ::a.b.c.d, which also holds :: and ::1.
  if (bytes.slice(0, 12).every((b) => b === 0)) return last4(12);
  return null;
}

/** Whether an address is ordinary public unicast: not loopback, private, link-local, metadata… */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const v4 = embeddedIPv4(v6);
    if (v4) return v4.range() === 'unicast';
    // Teredo hides its client behind an obfuscated address; nothing to check, so nothing allowed.
    return v6.range() === 'unicast';
  }
  return parsed.range() === 'unicast';
}

const refusal = (host: string, what: string) => new NetHostPrivateError(`${host} is a local or private address; ${what} only reaches public hosts.`);

export type Resolver = (host: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;
const systemResolver: Resolver = (host, callback) => dnsLookup(host, { all: true }, callback);

function resolveAll(host: string, resolver: Resolver = systemResolver): Promise<string[]> {
  return new Promise((resolve, reject) => resolver(host, (err, found) => (err ? reject(err) : resolve(found.map((a) => a.address)))));
}

/** Refuses a URL whose host is, or now resolves to, a non-public address. */
export async function assertPublicHost(url: URL, what = 'Warren', resolver?: Resolver): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [host] : await resolveAll(host, resolver).catch(() => {
    throw new NetHostUnresolvedError(`Could not resolve the host ${url.hostname}.`);
  });
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw refusal(url.hostname, what);
}

export interface GuardedAgentOptions {
  /** Names the caller in refusals (`web_fetch`, `webhooks`). */
  what: string;
  /** Loopback and private addresses allowed (tests, intranets). */
  allowPrivate?: boolean;
  /** Resolves names; the system resolver unless a test stands in for DNS. */
  resolver?: Resolver;
}

/**
 * An HTTP agent whose connections go only to addresses checked at connect time. An IP literal
 * never reaches `lookup` (the socket connects to it directly): `assertPublicHost` checks those.
 */
export function guardedAgent(options: GuardedAgentOptions): Agent {
  const resolver = options.resolver ?? systemResolver;
  type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;
  const lookup = (host: string, lookupOptions: { all?: boolean }, callback: LookupCallback) => {
    resolver(host, (err, found) => {
      if (err) return callback(err, []);
      const allowed = options.allowPrivate ? found : found.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0 || allowed.length !== found.length) return callback(refusal(host, options.what), []);
      const first = allowed[0] as LookupAddress;
      return lookupOptions.all ? callback(null, allowed) : callback(null, first.address, first.family);
    });
  };
  return new Agent({ connect: { lookup: lookup as never } });
}

export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The request for the next hop: 303 (and 301/302 after a POST) turn into a GET, as browsers do. */
function nextHop(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const headers = new Headers(init.headers);
  // Credentials meant for one origin never follow a redirect to another.
  if (to.origin !== from.origin) for (const name of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(name);
  const method = (init.method ?? 'GET').toUpperCase();
  if (status === 303 || ((status === 301 || status === 302) && method !== 'GET' && method !== 'HEAD')) {
    const { body: _dropped, ...rest } = init;
    headers.delete('content-type');
    headers.delete('content-length');
    return { ...rest, method: 'GET', headers };
  }
  return { ...init, headers };
}

/**
 * `fetch` for a caller that must only reach public hosts (unless `allowPrivate`): each hop's URL
 * is checked, the connection is pinned to a checked address, and a redirect to another scheme or
 * past `maxRedirects` hops is refused.
 */
export function guardedFetch(options: GuardedAgentOptions & { maxRedirects?: number }): GuardedFetch {
  const agent = guardedAgent(options);
  const maxRedirects = options.maxRedirects ?? 5;
  return async (input, init = {}) => {
    const start = new URL(input);
    let url = start;
    let request = init;
    for (let hop = 0; hop <= maxRedirects; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new NetSchemeUnsupportedError(`Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}.`);
      }
      if (!options.allowPrivate) await assertPublicHost(url, options.what, options.resolver);
      // undici's own fetch: Node's bundled one cannot drive a dispatcher from this undici release.
      const response = (await undiciFetch(url, { ...request, redirect: 'manual', dispatcher: agent } as never)) as unknown as Response;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      const next = new URL(location, url);
      request = nextHop(request, response.status, url, next);
      url = next;
    }
    throw new NetTooManyRedirectsError(`${start.href} redirected more than ${maxRedirects} times.`);
  };
}
