// The causes an outbound request (web_fetch, MCP over HTTP, a webhook) is refused with before or
// while it connects: outbound-guard.ts keeps them on the public internet.
import { defineError } from '../errors.js';

/** The host is, or resolves to, a loopback, private or otherwise non-public address. */
export const NetHostPrivateError = defineError('WARREN_NET_HOST_PRIVATE', 403);
/** The host name could not be resolved. */
export const NetHostUnresolvedError = defineError('WARREN_NET_HOST_UNRESOLVED', 400);
/** The URL's scheme is not http or https (as given, or after a redirect). */
export const NetSchemeUnsupportedError = defineError('WARREN_NET_SCHEME_UNSUPPORTED', 400);
/** The request was redirected more times than allowed. */
export const NetTooManyRedirectsError = defineError('WARREN_NET_TOO_MANY_REDIRECTS', 400);
