// One OAuth 2.0 token request (RFC 6749 §4.4 client_credentials, §6 refresh_token), form-encoded,
// and the reading of its answer. Every failure is a McpOAuthTokenFailedError whose message names
// the endpoint by origin and path and says what went wrong, and never holds a secret: not the
// client secret, not the refresh token, not a token, not the endpoint's query string.
import type { McpOAuthGrantType } from '../../src/config/extensions.js';
import { McpOAuthTokenFailedError } from './tools.errors.js';

/** An `oauth` block with defaults filled in and every `$NAME` resolved. */
export interface OAuthSettings {
  token_url: string;
  grant_type: McpOAuthGrantType;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  scope?: string | undefined;
  audience?: string | undefined;
  token_field: string;
  token_type_field: string;
  expires_in_field: string;
  default_token_type: string;
  refresh_skew_seconds: number;
  extra_token_params: Record<string, string>;
}

export interface IssuedToken {
  /** The `Authorization` value: `<type> <token>`. */
  header: string;
  /** Seconds the token lives, or null when the answer does not say. */
  expiresIn: number | null;
  /** A new refresh token, when the endpoint rotated it. */
  refreshToken: string | null;
}

export interface TokenRequestOptions {
  fetch: typeof fetch;
  timeoutMs: number;
}

/** What a header value may hold (RFC 9110 visible ASCII). A token with CR or LF would make
 * `Headers.set` throw a message quoting it, so it is refused here, unquoted. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;
/** An RFC 6749 §5.2 `error` code is safe to repeat; `error_description` is free text and is not. */
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The endpoint as messages name it: origin and path, without credentials or query. */
export function endpointName(tokenUrl: string): string {
  if (!URL.canParse(tokenUrl)) return 'the token endpoint (an invalid token_url)';
  const url = new URL(tokenUrl);
  return `${url.origin}${url.pathname}`;
}

function transportFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `got no answer within ${timeoutMs} ms`;
  const cause: unknown = err instanceof Error ? Reflect.get(err, 'cause') : undefined;
  const code: unknown = cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
  return `could not reach the endpoint (${typeof code === 'string' ? code : err instanceof Error ? err.name : typeof err})`;
}

async function errorCodeOf(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    const code: unknown = body !== null && typeof body === 'object' ? Reflect.get(body, 'error') : undefined;
    return typeof code === 'string' && ERROR_CODE.test(code) ? ` (${code})` : '';
  } catch {
    // Not JSON: the status alone says enough.
    return '';
  }
}

const field = (body: object, name: string): unknown => (Object.hasOwn(body, name) ? Reflect.get(body, name) : undefined);

function lifetimeOf(value: unknown): number | null {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** `bearer` and `Bearer` are the same scheme (RFC 6750); some servers accept only the latter. */
const normaliseType = (type: string): string => (type.toLowerCase() === 'bearer' ? 'Bearer' : type);

export function tokenRequestBody(settings: OAuthSettings, refreshToken: string | undefined): URLSearchParams {
  // Extra parameters first, so they can add fields but never replace the grant's own.
  const body = new URLSearchParams(settings.extra_token_params);
  body.set('grant_type', settings.grant_type);
  if (settings.grant_type === 'refresh_token') body.set('refresh_token', refreshToken ?? '');
  if (settings.client_id) body.set('client_id', settings.client_id);
  if (settings.client_secret) body.set('client_secret', settings.client_secret);
  if (settings.scope) body.set('scope', settings.scope);
  if (settings.audience) body.set('audience', settings.audience);
  return body;
}

export async function requestToken(settings: OAuthSettings, refreshToken: string | undefined, options: TokenRequestOptions): Promise<IssuedToken> {
  const where = `OAuth token request to ${endpointName(settings.token_url)}`;
  let response: Response;
  try {
    response = await options.fetch(settings.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: tokenRequestBody(settings, refreshToken),
      // A redirect would carry the client secret to wherever it points.
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    throw new McpOAuthTokenFailedError(`${where} failed: ${transportFailure(err, options.timeoutMs)}`);
  }
  if (!response.ok) throw new McpOAuthTokenFailedError(`${where} failed: HTTP ${response.status}${await errorCodeOf(response)}`);

  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new McpOAuthTokenFailedError(`${where} failed: the answer is not JSON`);
  }
  if (body === null || typeof body !== 'object') throw new McpOAuthTokenFailedError(`${where} failed: the answer is not a JSON object`);
  const token = field(body, settings.token_field);
  if (typeof token !== 'string' || token === '') throw new McpOAuthTokenFailedError(`${where} failed: the answer has no "${settings.token_field}" string`);
  const given = field(body, settings.token_type_field);
  const type = normaliseType(typeof given === 'string' && given !== '' ? given : settings.default_token_type);
  if (!HEADER_SAFE.test(token) || !HEADER_SAFE.test(type)) throw new McpOAuthTokenFailedError(`${where} failed: the token or its type is not a valid header value`);
  const rotated = field(body, 'refresh_token');
  return {
    header: `${type} ${token}`,
    expiresIn: lifetimeOf(field(body, settings.expires_in_field)),
    refreshToken: typeof rotated === 'string' && rotated !== '' ? rotated : null,
  };
}
