// Who a request acts for, from what it presents. Precedence: a custom auth module, when
// configured, decides alone; otherwise API keys and JWTs. `x-api-key` is an API key; an
// `Authorization: Bearer` value is tried as an API key first (when keys are configured), then as
// a JWT (when an issuer is configured). Nothing configured: every request is the anonymous admin.
import type { FastifyRequest } from 'fastify';
import { importModuleExport } from '../config/module-loader.js';
import type { AuthConfig } from '../config/app-config.schemas.js';
import { ConfigError } from '../errors.js';
import { OPEN_ACCESS, type AccessPolicy } from './access.js';
import { ApiKeyInvalidError, ApiKeyNotAcceptedError, CredentialsMissingError } from './auth.errors.js';
import { createKeyLookup, keyEntries, type KeyEntry } from './api-keys.js';
import { customAuthFrom, type CustomAuth } from './custom-module.js';
import { ANONYMOUS, type Identity } from './identity.js';
import { createJwtVerifier, type JwtVerifier } from './jwt.js';

export interface Authenticator {
  /** False: nothing is configured and every request is the anonymous admin. */
  readonly required: boolean;
  /** The request's identity; an error (401 {detail}, or the module's own status) refuses it. */
  authenticate(request: FastifyRequest): Promise<Identity>;
  /** The custom module's access handlers, or OPEN_ACCESS. */
  readonly policy: AccessPolicy;
}

export interface AuthenticatorParts {
  keys?: readonly KeyEntry[];
  jwt?: JwtVerifier | null;
  custom?: CustomAuth | null;
}

export const OPEN_AUTHENTICATOR: Authenticator = Object.freeze({ required: false, authenticate: async () => ANONYMOUS, policy: OPEN_ACCESS });

const BEARER = /^Bearer +([^\s]+) *$/i;

/** The credential a request presents: `x-api-key` wins over `Authorization: Bearer` when both are sent. */
export function presentedCredential(request: Pick<FastifyRequest, 'headers'>): { from: 'x-api-key' | 'bearer'; value: string } | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return { from: 'x-api-key', value: header };
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
  return bearer ? { from: 'bearer', value: bearer } : null;
}

export function createAuthenticator({ keys = [], jwt = null, custom = null }: AuthenticatorParts): Authenticator {
  if (custom) return { required: custom.authenticates, authenticate: (request) => custom.authenticate(request), policy: custom.policy };
  if (keys.length === 0 && !jwt) return OPEN_AUTHENTICATOR;
  const lookup = keys.length > 0 ? createKeyLookup(keys) : null;
  const missing = !jwt
    ? 'Missing API key: send it as the x-api-key header or as Authorization: Bearer <key>.'
    : lookup
      ? 'Missing API key or token: send a key as the x-api-key header, or a key or a token as Authorization: Bearer.'
      : 'Missing token: send it as Authorization: Bearer <token>.';

  return {
    required: true,
    policy: OPEN_ACCESS,
    async authenticate(request) {
      const credential = presentedCredential(request);
      if (credential === null) throw new CredentialsMissingError(missing);
      if (credential.from === 'x-api-key') {
        if (!lookup) throw new ApiKeyNotAcceptedError('API keys are not accepted here: send a token as Authorization: Bearer <token>.');
        const identity = lookup(credential.value);
        if (identity) return identity;
        throw new ApiKeyInvalidError('Invalid API key.');
      }
      const identity = lookup?.(credential.value) ?? null;
      if (identity) return identity;
      if (!jwt) throw new ApiKeyInvalidError('Invalid API key.');
      return jwt.verify(credential.value);
    },
  };
}

/**
 * The authenticator a configuration describes: `auth.module` loaded (as graphs are, TypeScript
 * included) when set, else the keys of `WARREN_API_KEYS` and `auth.api_keys` and the `auth.jwt` issuer.
 */
export async function authenticatorFor(auth: AuthConfig, envKeys: readonly string[], configDir: string): Promise<Authenticator> {
  if (auth.module !== undefined) {
    if (envKeys.length > 0 || auth.api_keys.length > 0 || auth.jwt) {
      throw new ConfigError('auth.module decides alone who a request is: remove auth.api_keys, auth.jwt and WARREN_API_KEYS, or the module.');
    }
    return createAuthenticator({ custom: customAuthFrom(await importModuleExport(auth.module, configDir, 'Auth'), auth.module) });
  }
  return createAuthenticator({ keys: keyEntries(envKeys, auth.api_keys), jwt: auth.jwt ? createJwtVerifier(auth.jwt) : null });
}
