// The two cookies of a signed-in browser, under DeerFlow's names (its UI and its Next.js server
// read them): `access_token`, HttpOnly, holding the signed session; `csrf_token`, readable by the
// page, which echoes it as `X-CSRF-Token` on every request that changes something (the
// double-submit pattern: a page of another site can make the browser send the cookie, never
// read it to copy it into a header).
export const SESSION_COOKIE = 'access_token';
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';

/** One cookie's value from a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const raw = pair.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw; // Not percent-encoded as we write it: compared as sent, and refused if wrong.
    }
  }
  return undefined;
}

export interface CookieOptions {
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Lax' | 'Strict';
  /** Seconds; absent for a cookie that ends with the browser session, 0 to delete it. */
  maxAge?: number;
  path?: string;
}

/** A `Set-Cookie` value. Names and values are ours (base64url and digits), so nothing needs quoting. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? '/'}`, `SameSite=${options.sameSite}`];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.httpOnly) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
