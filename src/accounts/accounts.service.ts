// DeerFlow's /api/v1/auth on Warren's users. An account's id is the Warren user its records are
// owned by, so a signed-in person is isolated exactly as an API key's user is. With accounts off
// the routes answer as DeerFlow's backend does with its auth disabled: `me` is whoever the
// request already is (the open service's anonymous admin), set-up is done, no providers.
import { randomUUID } from 'node:crypto';
import type { AccountsConfig } from '../config/app-config.schemas.js';
import { readCookie, SESSION_COOKIE } from '../auth/cookies.js';
import type { Identity } from '../auth/identity.js';
import type { Sessions } from '../auth/sessions.js';
import type { AccountRecord, AccountStore, FailureCounter } from '../store/accounts.js';
import {
  AccountsOffError,
  AlreadyInitializedError,
  EmailTakenError,
  InvalidCredentialsError,
  LoginThrottledError,
  PasswordChangeRefusedError,
  RegistrationClosedError,
  SignInCrossSiteError,
} from './accounts.errors.js';
import type { ChangePasswordBody, LoginBody, NewAccountBody, Providers, SetupStatus, User } from './accounts.schemas.js';
import { checkPasswordStrength, hashPassword, verifyPassword } from './passwords.js';
import { clearedSessionCookies, sessionCookies } from './session-cookies.js';

/** What a route reads off its request for the service (request-origin.ts decides each). */
export interface RequestFacts {
  https: boolean;
  clientAddress: string;
  /** Whether the request comes from a page of ours; null when it names no origin (not a browser). */
  sameOrigin: boolean | null;
  ownOrigin: string | null;
  cookieHeader: string | undefined;
}

/** A result and the Set-Cookie lines that go with it. */
export interface WithCookies<T> {
  body: T;
  cookies: string[];
}

export interface AccountsService {
  setupStatus(): Promise<SetupStatus>;
  initialize(body: NewAccountBody, facts: RequestFacts): Promise<WithCookies<User>>;
  register(body: NewAccountBody, facts: RequestFacts): Promise<WithCookies<User>>;
  login(body: LoginBody, facts: RequestFacts): Promise<WithCookies<{ expires_in: number; needs_setup: boolean }>>;
  logout(facts: RequestFacts): Promise<WithCookies<{ message: string }>>;
  me(identity: Identity): Promise<User>;
  changePassword(identity: Identity, body: ChangePasswordBody, facts: RequestFacts): Promise<WithCookies<{ message: string }>>;
  providers(): Providers;
  /** Signs a person in as an account (made on the spot when new): the cookies of a fresh session. */
  startSession(account: AccountRecord, facts: RequestFacts, remember: boolean): Promise<string[]>;
}

export interface AccountsServiceDeps {
  config: AccountsConfig;
  /** Absent when accounts are off. */
  store?: AccountStore;
  sessions?: Sessions;
}

const remembered = (value: boolean | 'true' | 'false' | null | undefined): boolean => value === undefined || value === null || value === true || value === 'true';
const normalEmail = (email: string): string => email.trim().toLowerCase();

/** `me` for an identity without an account (an API key's user, the anonymous admin): DeerFlow's UI needs an email-shaped value. */
function identityUser(identity: Identity): User {
  const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(identity.user) ? identity.user : `${identity.user.replace(/[^A-Za-z0-9._-]/g, '_')}@warren.local`;
  return { id: identity.user, email, system_role: identity.role, needs_setup: false, oauth_provider: null };
}

const accountUser = (account: AccountRecord): User => ({ id: account.id, email: account.email, system_role: account.role, needs_setup: false, oauth_provider: account.oauth_provider });

export function createAccountsService({ config, store, sessions }: AccountsServiceDeps): AccountsService {
  const on = () => {
    if (!config.enabled || !store || !sessions) throw new AccountsOffError('Accounts are off on this deployment (auth.accounts.enabled is false): there is no account to use.');
    return { store, sessions };
  };
  /** Login CSRF: a page of another site must not sign the browser in (or out) as someone. No Origin: not a browser, allowed (DeerFlow's rule). */
  const refuseCrossSite = (facts: RequestFacts) => {
    if (facts.sameOrigin === false) throw new SignInCrossSiteError('Cross-site sign-in refused: this request comes from a page of another origin.');
  };
  const startSession = async (account: AccountRecord, facts: RequestFacts, remember: boolean) => {
    const { store, sessions } = on();
    const { token, session } = await sessions.issue(account.id, config.session_days);
    await store.addSession(account.id, session);
    return sessionCookies(token, { secure: facts.https, remember, days: config.session_days });
  };
  const newLocalAccount = async (body: NewAccountBody, role: AccountRecord['role']): Promise<AccountRecord> => {
    const email = normalEmail(body.email);
    checkPasswordStrength(body.password, email);
    return { id: randomUUID(), email, role, created_at: new Date().toISOString(), password_hash: await hashPassword(body.password), oauth_provider: null, oauth_subject: null };
  };

  return {
    async setupStatus() {
      if (!config.enabled || !store) return { needs_setup: false, registration_enabled: false };
      return { needs_setup: !(await store.initialized()), registration_enabled: config.self_registration };
    },

    async initialize(body, facts) {
      const { store } = on();
      refuseCrossSite(facts);
      if (await store.initialized()) throw new AlreadyInitializedError('System already initialized: sign in instead.');
      const account = await newLocalAccount(body, 'admin');
      const outcome = await store.create(account, { firstAdmin: true });
      if (outcome === 'already_initialized') throw new AlreadyInitializedError('System already initialized: sign in instead.');
      if (outcome !== 'created') throw new EmailTakenError('Email already registered.');
      return { body: accountUser(account), cookies: await startSession(account, facts, remembered(body.remember_me)) };
    },

    async register(body, facts) {
      const { store } = on();
      refuseCrossSite(facts);
      if (!config.self_registration) throw new RegistrationClosedError('Self-registration is disabled on this deployment (auth.accounts.self_registration).');
      const account = await newLocalAccount(body, 'user');
      if ((await store.create(account)) !== 'created') throw new EmailTakenError('Email already registered.');
      return { body: accountUser(account), cookies: await startSession(account, facts, remembered(body.remember_me)) };
    },

    async login(body, facts) {
      const { store } = on();
      refuseCrossSite(facts);
      const given = body.username ?? body.email;
      if (given === undefined) throw new InvalidCredentialsError('Incorrect email or password.');
      const email = normalEmail(given);
      const counters: FailureCounter[] = [
        { kind: 'address', value: facts.clientAddress },
        { kind: 'account', value: email },
      ];
      // Counted before the password is checked, in one step with the check (a Lua script): a
      // burst of guesses in flight on every replica still gets `login_attempts` checks, no more.
      const wait = await store.countAttempt(counters, config.login_attempts, config.lockout_seconds);
      if (wait !== null) throw new LoginThrottledError(`Too many failed sign-ins. Try again in ${wait} s.`, wait);
      const id = await store.idByEmail(email);
      const account = id === null ? null : await store.get(id);
      // A missing account costs the same hashing as a wrong password: timing does not say which.
      const matches = await verifyPassword(body.password, account?.password_hash ?? null);
      if (!account || !matches) throw new InvalidCredentialsError('Incorrect email or password.');
      await store.clearFailures(counters);
      const cookies = await startSession(account, facts, remembered(body.remember_me));
      return { body: { expires_in: config.session_days * 86_400, needs_setup: false }, cookies };
    },

    async logout(facts) {
      const cleared = clearedSessionCookies(facts.https);
      if (!config.enabled || !store || !sessions) return { body: { message: 'Successfully logged out' }, cookies: cleared };
      refuseCrossSite(facts);
      const token = readCookie(facts.cookieHeader, SESSION_COOKIE);
      if (token) {
        // A cookie that is not ours (or has expired) ends nothing; it is cleared all the same.
        const claims = await sessions.decode(token).catch(() => null);
        if (claims) await store.endSession(claims.accountId, claims.sessionId);
      }
      return { body: { message: 'Successfully logged out' }, cookies: cleared };
    },

    async me(identity) {
      const account = config.enabled && store ? await store.get(identity.user) : null;
      return account ? accountUser(account) : identityUser(identity);
    },

    async changePassword(identity, body, facts) {
      const { store, sessions } = on();
      const account = await store.get(identity.user);
      if (!account) throw new PasswordChangeRefusedError('Password changes are for accounts: this request is signed in with an API key or a token.');
      if (account.password_hash === null) throw new PasswordChangeRefusedError('This account signs in with its OIDC provider and has no password to change.');
      if (!(await verifyPassword(body.current_password, account.password_hash))) throw new PasswordChangeRefusedError('Current password is incorrect.');
      const newEmail = body.new_email ? normalEmail(body.new_email) : null;
      checkPasswordStrength(body.new_password, newEmail ?? account.email);
      const { token, session } = await sessions.issue(account.id, config.session_days);
      const outcome = await store.changePassword(account, await hashPassword(body.new_password), newEmail, session);
      if (outcome === 'email_taken') throw new EmailTakenError('Email already in use.');
      if (outcome === 'gone') throw new PasswordChangeRefusedError('The account no longer exists.');
      return { body: { message: 'Password changed successfully' }, cookies: sessionCookies(token, { secure: facts.https, remember: remembered(body.remember_me), days: config.session_days }) };
    },

    providers() {
      if (!config.enabled) return { providers: [] };
      return { providers: Object.entries(config.oidc).map(([id, provider]) => ({ id, display_name: provider.display_name, type: 'oidc' as const })) };
    },

    startSession,
  };
}
