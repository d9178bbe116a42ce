// Bearer JWTs from an OpenID Connect issuer, verified with jose against the issuer's JWKS. The
// key set is fetched on first use (its address from the discovery document unless configured)
// and refetched when a token names a key it does not hold, at most once per cooldown: an
// issuer that rotates its keys is followed without a restart, and a key it drops stops working
// at the next refetch. A refusal names what failed and never echoes the token.
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { JwtConfig } from '../config/app-config.schemas.js';
import { TokenExpiredError, TokenInvalidError, TokenIssuerUnavailableError } from './auth.errors.js';
import type { Identity } from './identity.js';

export interface JwtVerifier {
  /** The identity a token stands for; a 401 (TokenExpiredError, TokenInvalidError) names why not. */
  verify(token: string): Promise<Identity>;
}

/** Three base64url parts: a value that is plainly meant as a JWT (and not an API key). */
export const looksLikeJwt = (value: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);

/** A claim by name; dots walk into nested objects (`realm_access.roles`) unless the name itself exists. */
function claim(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A claim as a list of strings: a list's strings, or a space-separated string (OAuth's `scope`). */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** Why a token was refused, in words a client can act on, from jose's error. */
function refusal(err: unknown): Error {
  if (err instanceof errors.JWTExpired) return new TokenExpiredError('Invalid token: it has expired.');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return new TokenInvalidError('Invalid token: wrong issuer.');
    if (err.claim === 'aud') return new TokenInvalidError('Invalid token: wrong audience.');
    if (err.claim === 'nbf') return new TokenInvalidError('Invalid token: not yet valid.');
    if (err.claim === 'iat') return new TokenInvalidError('Invalid token: issued in the future.');
    if (err.reason === 'missing') return new TokenInvalidError(`Invalid token: it has no "${err.claim}" claim.`);
    return new TokenInvalidError(`Invalid token: the "${err.claim}" claim is invalid.`);
  }
  if (err instanceof errors.JWKSNoMatchingKey) return new TokenInvalidError('Invalid token: signed by an unknown key.');
  if (err instanceof errors.JWKSMultipleMatchingKeys) return new TokenInvalidError('Invalid token: its key id matches more than one key.');
  if (err instanceof errors.JWSSignatureVerificationFailed) return new TokenInvalidError('Invalid token: bad signature.');
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) return new TokenInvalidError('Invalid token: its signing algorithm is not accepted.');
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return new TokenInvalidError('Invalid token: it is malformed.');
  if (err instanceof errors.JWKSTimeout) return new TokenIssuerUnavailableError("Service unavailable: the token issuer's keys could not be fetched in time. Retry shortly.");
  // The key set could not be fetched or read: the issuer's trouble, not the client's.
  return new TokenIssuerUnavailableError("Service unavailable: the token issuer's keys could not be fetched. Retry shortly.", { cause: err });
}

async function discoverJwksUrl(config: JwtConfig): Promise<URL> {
  const issuer = config.issuer.replace(/\/+$/, '');
  const url = `${issuer}/.well-known/openid-configuration`;
  let document: unknown;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(config.fetch_timeout_seconds * 1000), redirect: 'error' });
    if (!res.ok) throw new TokenIssuerUnavailableError(`${url} answered ${res.status}`);
    document = await res.json();
  } catch (err) {
    throw new TokenIssuerUnavailableError("Service unavailable: the token issuer's discovery document could not be read. Retry shortly.", { cause: err });
  }
  const jwksUri = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
  if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri)) {
    throw new TokenIssuerUnavailableError("Service unavailable: the token issuer's discovery document names no jwks_uri.");
  }
  return new URL(jwksUri);
}

export function createJwtVerifier(config: JwtConfig): JwtVerifier {
  type KeySet = ReturnType<typeof createRemoteJWKSet>;
  let keySet: Promise<KeySet> | undefined;
  const keys = (): Promise<KeySet> => {
    if (keySet) return keySet;
    keySet = (async () => {
      const url = config.jwks_url ? new URL(config.jwks_url) : await discoverJwksUrl(config);
      return createRemoteJWKSet(url, {
        timeoutDuration: config.fetch_timeout_seconds * 1000,
        cooldownDuration: config.jwks_cooldown_seconds * 1000,
        cacheMaxAge: config.jwks_cache_max_age_seconds * 1000,
      });
    })();
    // A failed discovery is tried again by the next request, not remembered.
    keySet.catch(() => (keySet = undefined));
    return keySet;
  };
  const audience = typeof config.audience === 'string' ? config.audience : [...config.audience];

  return {
    async verify(token) {
      const set = await keys();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, set, {
          issuer: config.issuer,
          audience,
          algorithms: [...config.algorithms],
          clockTolerance: config.clock_skew_seconds,
          requiredClaims: ['exp'],
        }));
      } catch (err) {
        throw refusal(err);
      }
      const user = claim(payload, config.user_claim);
      if (typeof user !== 'string' || user === '' || user.length > 256) {
        throw new TokenInvalidError(`Invalid token: its "${config.user_claim}" claim does not name a user.`);
      }
      const roles = config.role_claim ? stringsOf(claim(payload, config.role_claim)) : [];
      const admin = roles.some((role) => config.admin_values.includes(role));
      const permissions = config.permissions_claim ? stringsOf(claim(payload, config.permissions_claim)) : [];
      return { user, role: admin ? 'admin' : 'user', permissions };
    },
  };
}
