// The causes the accounts routes (`/api/v1/auth/*`) refuse with.
import { defineError } from '../errors.js';

/** A sign-in route was called while `auth.accounts.enabled` is off: there is no account to use. */
export const AccountsOffError = defineError('WARREN_ACCOUNTS_OFF', 400);
/** The email and password match no account (which of the two is wrong is not said). */
export const InvalidCredentialsError = defineError('WARREN_INVALID_CREDENTIALS', 401);
/** Another account already has this email. */
export const EmailTakenError = defineError('WARREN_EMAIL_TAKEN', 400);
/** `initialize` after the first admin exists. */
export const AlreadyInitializedError = defineError('WARREN_ALREADY_INITIALIZED', 409);
/** `register` while `auth.accounts.self_registration` is off. */
export const RegistrationClosedError = defineError('WARREN_REGISTRATION_CLOSED', 403);
/** A new password breaks the rules: too short, too long, too common, or the email itself. */
export const WeakPasswordError = defineError('WARREN_WEAK_PASSWORD', 422);
/** `change-password` with a wrong current password, or for an account without one (made by an OIDC sign-in). */
export const PasswordChangeRefusedError = defineError('WARREN_PASSWORD_CHANGE_REFUSED', 400);
/** The sign-in came from another site's page (login CSRF). */
export const SignInCrossSiteError = defineError('WARREN_SIGN_IN_CROSS_SITE', 403);
/** `oauth/{provider}` or `callback/{provider}` names no configured OIDC provider. */
export const UnknownProviderError = defineError('WARREN_UNKNOWN_PROVIDER', 404);
/** An OIDC callback without a sign-in this browser started (its state is unknown, used, expired or not this browser's). */
export const SignInStateInvalidError = defineError('WARREN_SIGN_IN_STATE_INVALID', 403);
/** The OIDC provider could not be reached, or answered something unusable; retrying may work. */
export const ProviderUnavailableError = defineError('WARREN_PROVIDER_UNAVAILABLE', 502);

const LoginThrottled = defineError('WARREN_LOGIN_THROTTLED', 429);
/** Too many failed sign-ins for this account or from this address: refused until the lockout ends. */
export class LoginThrottledError extends LoginThrottled {
  constructor(
    message: string,
    /** For the `Retry-After` header. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * DeerFlow's auth error codes (its `AuthErrorCode`) for the Warren causes it answers with one. On
 * `/api/v1/auth` these answer `{detail: {code, message}}`, DeerFlow's body, which its UI parses
 * (`parseAuthError`) and branches on (a second `initialize` sends the browser to /login); the
 * message is Warren's sentence. Causes DeerFlow answers with a plain string (throttling, a
 * cross-site sign-in, an unknown provider, a weak password) stay `{detail: "…"}` as there.
 */
const DEERFLOW_AUTH_CODES: Readonly<Record<string, string>> = {
  WARREN_INVALID_CREDENTIALS: 'invalid_credentials',
  // DeerFlow refuses a wrong current password, an OAuth account's change and a change with auth off as invalid_credentials.
  WARREN_PASSWORD_CHANGE_REFUSED: 'invalid_credentials',
  WARREN_ACCOUNTS_OFF: 'invalid_credentials',
  WARREN_EMAIL_TAKEN: 'email_already_exists',
  WARREN_ALREADY_INITIALIZED: 'system_already_initialized',
  WARREN_REGISTRATION_CLOSED: 'registration_disabled',
  // The auth gate's refusals of `me` and `change-password`, as DeerFlow's get_current_user answers them.
  WARREN_CREDENTIALS_MISSING: 'not_authenticated',
  WARREN_SESSION_EXPIRED: 'token_expired',
  WARREN_TOKEN_EXPIRED: 'token_expired',
  WARREN_SESSION_INVALID: 'token_invalid',
  WARREN_TOKEN_INVALID: 'token_invalid',
  WARREN_API_KEY_INVALID: 'token_invalid',
  WARREN_API_KEY_NOT_ACCEPTED: 'token_invalid',
};

/** `detail` on /api/v1/auth: DeerFlow's `{code, message}` where DeerFlow has a code for the cause, else Warren's sentence. */
export function deerflowAuthDetail(err: Error, sentence: string): unknown {
  const code = 'code' in err && typeof err.code === 'string' ? DEERFLOW_AUTH_CODES[err.code] : undefined;
  return code === undefined ? sentence : { code, message: sentence };
}
