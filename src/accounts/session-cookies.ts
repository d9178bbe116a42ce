// The Set-Cookie lines of a session, as DeerFlow's UI expects them: `access_token` HttpOnly and
// SameSite=Lax (a link from another site still arrives signed in; a form posted from one does
// not carry it), `csrf_token` readable by the page and SameSite=Strict. Both are Secure when the
// browser came over HTTPS. "Remember me" keeps them for the session's life; otherwise they end
// with the browser (the session itself still expires on time).
import { randomBytes } from 'node:crypto';
import { CSRF_COOKIE, serializeCookie, SESSION_COOKIE } from '../auth/cookies.js';

export const OIDC_STATE_COOKIE = 'warren_oidc_state';
export const OIDC_CALLBACK_PATH = '/api/v1/auth/callback';

export function sessionCookies(token: string, options: { secure: boolean; remember: boolean; days: number }): string[] {
  const maxAge = options.remember ? options.days * 86_400 : undefined;
  const common = { secure: options.secure, ...(maxAge !== undefined ? { maxAge } : {}) };
  return [
    serializeCookie(SESSION_COOKIE, token, { ...common, httpOnly: true, sameSite: 'Lax' }),
    serializeCookie(CSRF_COOKIE, randomBytes(32).toString('base64url'), { ...common, httpOnly: false, sameSite: 'Strict' }),
  ];
}

/** Lines that delete both cookies. */
export function clearedSessionCookies(secure: boolean): string[] {
  return [
    serializeCookie(SESSION_COOKIE, '', { secure, httpOnly: true, sameSite: 'Lax', maxAge: 0 }),
    serializeCookie(CSRF_COOKIE, '', { secure, httpOnly: false, sameSite: 'Strict', maxAge: 0 }),
  ];
}

/** The cookie that ties an OIDC callback to the browser that started the sign-in (login CSRF). */
export function oidcStateCookie(state: string, secure: boolean, maxAge: number): string {
  return serializeCookie(OIDC_STATE_COOKIE, state, { secure, httpOnly: true, sameSite: 'Lax', maxAge, path: OIDC_CALLBACK_PATH });
}
