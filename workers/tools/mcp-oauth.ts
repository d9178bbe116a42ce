// OAuth 2.0 for MCP servers reached over http or sse: one token source per server, plugged into
// the toolset's `httpAuth` hook. A source fetches a token from `token_url`, caches it until it
// expires minus `refresh_skew_seconds`, then fetches the next one before the old one runs out.
// After a 401 from the MCP server, withHttpAuth calls invalidate() and asks once more, which
// fetches a fresh token. A token endpoint that fails makes authorization() reject; during a
// load that skips only this server (mcp-tools.ts logs it), during a tool call it fails that call.
// Sources are kept per server across reloads while the server's oauth block is unchanged, so a
// reload does not fetch new tokens and a rotated refresh token is not lost.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { MCP_OAUTH_DEFAULTS, type McpOAuth, type McpServer } from '../../src/config/extensions.js';
import type { HttpAuthSource } from './mcp-http-auth.js';
import { endpointName, requestToken, type OAuthSettings } from './mcp-oauth-token.js';
import { resolveValues } from './mcp-transport.js';
import { McpOAuthUnconfiguredError } from './tools.errors.js';

export interface McpOAuthOptions {
  log: Logger;
  /**
   * Where `$NAME` references in `oauth` blocks are read.
   * @defaultValue process.env
   */
  env?: NodeJS.ProcessEnv;
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
  /** The clock that token lifetimes are measured on. @defaultValue Date.now */
  now?: () => number;
  /**
   * How long one token request may take; below the toolset's connect deadline, so a dead
   * endpoint is reported as such rather than as a server that did not start.
   * @defaultValue 10_000
   */
  requestTimeoutMs?: number;
}

export interface McpOAuthTokens {
  /** A token source for a server with an enabled `oauth` block, else undefined. */
  sourceFor(serverName: string, server: McpServer): HttpAuthSource | undefined;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Servers whose sources are kept; the least recently used beyond this are dropped. */
const SOURCE_CACHE_LIMIT = 64;
const RESOLVED_FIELDS = ['token_url', 'client_id', 'client_secret', 'refresh_token', 'scope', 'audience'] as const;

type Resolved = { settings: OAuthSettings; refreshToken: string | undefined } | { reason: string };

function resolveSettings(oauth: McpOAuth, env: NodeJS.ProcessEnv): Resolved {
  const given: Record<string, string> = {};
  for (const key of RESOLVED_FIELDS) if (oauth[key] !== undefined) given[key] = oauth[key];
  const fields = resolveValues('oauth', given, env);
  if ('reason' in fields) return fields;
  const extraParams = resolveValues('oauth.extra_token_params', oauth.extra_token_params, env);
  if ('reason' in extraParams) return extraParams;
  const values: Partial<Record<(typeof RESOLVED_FIELDS)[number], string>> = fields.values;
  const extra = extraParams.values;
  const defaults = MCP_OAUTH_DEFAULTS;
  return {
    settings: {
      // mcpServerProblem has refused a block without one before the toolset gets here.
      token_url: values.token_url ?? '',
      grant_type: oauth.grant_type ?? defaults.grant_type,
      client_id: values.client_id,
      client_secret: values.client_secret,
      scope: values.scope,
      audience: values.audience,
      token_field: oauth.token_field ?? defaults.token_field,
      token_type_field: oauth.token_type_field ?? defaults.token_type_field,
      expires_in_field: oauth.expires_in_field ?? defaults.expires_in_field,
      default_token_type: oauth.default_token_type ?? defaults.default_token_type,
      refresh_skew_seconds: oauth.refresh_skew_seconds ?? defaults.refresh_skew_seconds,
      extra_token_params: extra,
    },
    refreshToken: values.refresh_token,
  };
}

/**
 * When to fetch the next token: `refresh_skew_seconds` before expiry, but never before half the
 * lifetime, or a token shorter-lived than the skew would be fetched anew for every request.
 */
function refreshDelayMs(expiresIn: number, skewSeconds: number): number {
  return Math.max(expiresIn - skewSeconds, expiresIn / 2) * 1000;
}

interface CachedToken {
  header: string;
  /** From here on the next request fetches a new token. */
  refreshAt: number;
  /** After this the token is not used even when a refresh fails. */
  expiresAt: number;
}

interface SourceContext {
  log: Logger;
  fetch: typeof fetch;
  now: () => number;
  timeoutMs: number;
}

function createTokenSource(resolved: Resolved, context: SourceContext): HttpAuthSource {
  if ('reason' in resolved) {
    const { reason } = resolved;
    return {
      authorization: () => Promise.reject(new McpOAuthUnconfiguredError(reason)),
      invalidate: () => undefined,
    };
  }
  const { settings } = resolved;
  const { log, now } = context;
  let refreshToken = resolved.refreshToken;
  let cached: CachedToken | undefined;
  /** The request in flight; concurrent callers share it. */
  let pending: Promise<CachedToken> | undefined;

  async function fetchToken(): Promise<CachedToken> {
    const sentAt = now();
    const issued = await requestToken(settings, refreshToken, { fetch: context.fetch, timeoutMs: context.timeoutMs });
    if (issued.refreshToken && settings.grant_type === 'refresh_token') refreshToken = issued.refreshToken;
    log.debug({ token_endpoint: endpointName(settings.token_url), expires_in: issued.expiresIn }, 'MCP OAuth token fetched');
    // Measured from when the request left, so the cache never outlives the token.
    const lifetimeMs = issued.expiresIn === null ? Infinity : issued.expiresIn * 1000;
    const refreshMs = issued.expiresIn === null ? Infinity : refreshDelayMs(issued.expiresIn, settings.refresh_skew_seconds);
    return { header: issued.header, refreshAt: sentAt + refreshMs, expiresAt: sentAt + lifetimeMs };
  }

  return {
    async authorization() {
      const current = cached;
      if (current && now() < current.refreshAt) return current.header;
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      try {
        cached = await pending;
        return cached.header;
      } catch (err) {
        // Refreshing early is a courtesy: a token that has not yet expired still serves.
        if (current && cached === current && now() < current.expiresAt) {
          log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'MCP OAuth token refresh failed; the current token is kept until it expires');
          return current.header;
        }
        throw err;
      }
    },
    invalidate(rejected) {
      // Several requests may fail with the same token; only the first drops it.
      if (cached?.header === rejected) cached = undefined;
    },
  };
}

export function createMcpOAuth(options: McpOAuthOptions): McpOAuthTokens {
  const env = options.env ?? process.env;
  const context = {
    fetch: options.fetch ?? fetch,
    now: options.now ?? Date.now,
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  /** A cache of sources by server name, each with a fingerprint of the block it was made from. */
  const sourceCache = new Map<string, { fingerprint: string; source: HttpAuthSource }>();

  return {
    sourceFor(serverName, server) {
      const { oauth } = server;
      if (!oauth || oauth.enabled === false) return undefined;
      // Held in memory only, like the block itself; it tells an edited block from an unchanged one.
      const fingerprint = createHash('sha256').update(JSON.stringify(oauth)).digest('hex');
      const known = sourceCache.get(serverName);
      sourceCache.delete(serverName);
      const entry =
        known?.fingerprint === fingerprint
          ? known
          : { fingerprint, source: createTokenSource(resolveSettings(oauth, env), { ...context, log: options.log.child({ mcp_server: serverName }) }) };
      sourceCache.set(serverName, entry);
      for (const name of sourceCache.keys()) {
        if (sourceCache.size <= SOURCE_CACHE_LIMIT) break;
        sourceCache.delete(name);
      }
      return entry.source;
    },
  };
}
