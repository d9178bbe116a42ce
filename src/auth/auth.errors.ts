// The causes authentication and access checks refuse with. (A custom auth module's own
// HTTPException is HttpStatusError in src/errors.ts: its status is the module's.)
import { defineError } from '../errors.js';

/** The deployment needs credentials and the request sent none. */
export const CredentialsMissingError = defineError('WARREN_CREDENTIALS_MISSING', 401);
/** An API key was sent (x-api-key) where only tokens are accepted. */
export const ApiKeyNotAcceptedError = defineError('WARREN_API_KEY_NOT_ACCEPTED', 401);
/** The API key sent is not one of the deployment's. */
export const ApiKeyInvalidError = defineError('WARREN_API_KEY_INVALID', 401);
/** The bearer token has expired. */
export const TokenExpiredError = defineError('WARREN_TOKEN_EXPIRED', 401);
/** The bearer token is not one Warren accepts: malformed, badly signed, or a claim is wrong or missing. */
export const TokenInvalidError = defineError('WARREN_TOKEN_INVALID', 401);
/** The token issuer's discovery document or keys could not be fetched; retrying shortly may work. */
export const TokenIssuerUnavailableError = defineError('WARREN_TOKEN_ISSUER_UNAVAILABLE', 503);
/** A custom auth module's handler answered false: the action is refused. */
export const AccessRefusedError = defineError('WARREN_ACCESS_REFUSED', 403);
/** The route changes the deployment's configuration, which only an admin may. */
export const AdminRequiredError = defineError('WARREN_ADMIN_REQUIRED', 403);
/** A custom auth module answered something it must not (an unusable identity, filter or namespace): its fault. */
export const AuthModuleInvalidError = defineError('WARREN_AUTH_MODULE_INVALID', 500);
/** The session cookie is not one Warren signed, or names a session that has ended (signed out, password changed). */
export const SessionInvalidError = defineError('WARREN_SESSION_INVALID', 401);
/** The session cookie's session has run its course: sign in again. */
export const SessionExpiredError = defineError('WARREN_SESSION_EXPIRED', 401);
/** A request carried the session cookie from a page that is not ours, without the CSRF token (cross-site request forgery). */
export const CrossSiteRefusedError = defineError('WARREN_CROSS_SITE_REFUSED', 403);
