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
