// People's accounts, their sessions, sign-in attempts and OIDC sign-ins under way, in Redis so
// every API replica sees the same ones at once. Storage only: hashing, rules and tokens live in
// src/accounts/ and src/auth/sessions.ts.
import { keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { requireScript, type ScriptCaller } from './scripts.js';

export type AccountRole = 'admin' | 'user';

export interface AccountRecord {
  id: string;
  /** Lowercased. */
  email: string;
  /** `scrypt$…` (src/accounts/passwords.ts); null for an account made by an OIDC sign-in. */
  password_hash: string | null;
  role: AccountRole;
  created_at: string;
  /** The OIDC provider id and subject the account signs in with, or null for a local account. */
  oauth_provider: string | null;
  oauth_subject: string | null;
}

export type CreateOutcome = 'created' | 'email_taken' | 'already_initialized' | 'subject_taken';
export type PasswordChangeOutcome = 'changed' | 'gone' | 'email_taken';

export interface NewSession {
  id: string;
  /** When it expires, in ms since the epoch. */
  expiresAt: number;
}

export interface AccountStore {
  /** Creates an account; `firstAdmin` also completes the deployment's set-up, once. */
  create(account: AccountRecord, options?: { firstAdmin?: boolean }): Promise<CreateOutcome>;
  get(accountId: string): Promise<AccountRecord | null>;
  idByEmail(email: string): Promise<string | null>;
  idByOAuth(provider: string, subject: string): Promise<string | null>;
  /** Whether `initialize` has made the first admin. */
  initialized(): Promise<boolean>;
  /** A new password (and email), every other session ended, `session` the only one left. */
  changePassword(account: AccountRecord, passwordHash: string, newEmail: string | null, session: NewSession): Promise<PasswordChangeOutcome>;

  addSession(accountId: string, session: NewSession): Promise<void>;
  endSession(accountId: string, sessionId: string): Promise<void>;
  /** The account's role when the session is live, else null: one round trip, asked on every request. */
  sessionRole(accountId: string, sessionId: string, now: number): Promise<AccountRole | null>;

  /**
   * Counts a sign-in attempt on every counter at once, unless one has reached `limit`: null when
   * counted (the attempt may go on), else the seconds until the lock ends. Each counter is
   * forgotten `windowSeconds` after the last attempt it counted.
   */
  countAttempt(counters: readonly FailureCounter[], limit: number, windowSeconds: number): Promise<number | null>;
  /** After a successful sign-in: its counters start again from nothing. */
  clearFailures(counters: readonly FailureCounter[]): Promise<void>;

  /** Keeps an OIDC sign-in under way for `ttlSeconds`. */
  putSignIn(state: string, payload: string, ttlSeconds: number): Promise<void>;
  /** Takes it back, once: a replayed callback finds nothing. */
  takeSignIn(state: string): Promise<string | null>;
}

export interface FailureCounter {
  kind: 'address' | 'account';
  value: string;
}

const CREATE_OUTCOMES: Record<number, CreateOutcome> = { 1: 'created', [-1]: 'email_taken', [-2]: 'already_initialized', [-3]: 'subject_taken' };
const CHANGE_OUTCOMES: Record<number, PasswordChangeOutcome> = { 1: 'changed', 0: 'gone', [-1]: 'email_taken' };

function fromHash(hash: Record<string, string>): AccountRecord | null {
  const { id, email, role, created_at: createdAt } = hash;
  if (!id || !email || (role !== 'admin' && role !== 'user') || !createdAt) return null;
  return {
    id,
    email,
    role,
    created_at: createdAt,
    password_hash: hash.password_hash || null,
    oauth_provider: hash.oauth_provider || null,
    oauth_subject: hash.oauth_subject || null,
  };
}

function toFields(account: AccountRecord): string[] {
  return [
    'id', account.id,
    'email', account.email,
    'role', account.role,
    'created_at', account.created_at,
    'password_hash', account.password_hash ?? '',
    'oauth_provider', account.oauth_provider ?? '',
    'oauth_subject', account.oauth_subject ?? '',
  ];
}

/** The sessions key lives as long as the longest session could. */
const sessionsTtl = (session: NewSession, now: number) => Math.max(1, Math.ceil((session.expiresAt - now) / 1000));

export function createAccountStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): AccountStore {
  const createAccount = requireScript(scripts, 'createAccount');
  const changeAccountPassword = requireScript(scripts, 'changeAccountPassword');
  const countLoginAttempt = requireScript(scripts, 'countLoginAttempt');
  const counterKey = (c: FailureCounter) => keys.loginFailures(c.kind, c.value);

  return {
    async create(account, options = {}) {
      const emailKey = keys.accountEmail(account.email);
      const subjectKey = account.oauth_provider && account.oauth_subject ? keys.accountOAuth(account.oauth_provider, account.oauth_subject) : emailKey;
      const reply = await createAccount([keys.account(account.id), emailKey, keys.accountsAdmin(), subjectKey], [account.id, options.firstAdmin ? 'first-admin' : '', ...toFields(account)]);
      return CREATE_OUTCOMES[Number(reply)] ?? 'email_taken';
    },
    async get(accountId) {
      return fromHash(await redis.hgetall(keys.account(accountId)));
    },
    idByEmail: (email) => redis.get(keys.accountEmail(email)),
    idByOAuth: (provider, subject) => redis.get(keys.accountOAuth(provider, subject)),
    async initialized() {
      return (await redis.exists(keys.accountsAdmin())) === 1;
    },
    async changePassword(account, passwordHash, newEmail, session) {
      const current = keys.accountEmail(account.email);
      const next = newEmail !== null && newEmail !== account.email ? keys.accountEmail(newEmail) : current;
      const reply = await changeAccountPassword(
        [keys.account(account.id), current, next, keys.accountSessions(account.id)],
        [account.id, passwordHash, newEmail ?? '', session.id, session.expiresAt, sessionsTtl(session, Date.now())],
      );
      return CHANGE_OUTCOMES[Number(reply)] ?? 'gone';
    },

    async addSession(accountId, session) {
      const key = keys.accountSessions(accountId);
      const now = Date.now();
      // Expired ids are dropped as new ones come, so the set stays as small as the live sessions.
      await redis
        .multi()
        .zremrangebyscore(key, '-inf', now)
        .zadd(key, session.expiresAt, session.id)
        .expire(key, sessionsTtl(session, now), 'GT')
        .expire(key, sessionsTtl(session, now), 'NX')
        .exec();
    },
    async endSession(accountId, sessionId) {
      await redis.zrem(keys.accountSessions(accountId), sessionId);
    },
    async sessionRole(accountId, sessionId, now) {
      // One pipeline on one slot: a single round trip whatever the Redis.
      const replies = await redis.pipeline().hget(keys.account(accountId), 'role').zscore(keys.accountSessions(accountId), sessionId).exec();
      const [roleReply, scoreReply] = replies ?? [];
      if (!roleReply || !scoreReply || roleReply[0] || scoreReply[0]) {
        const err = roleReply?.[0] ?? scoreReply?.[0];
        if (err) throw err;
        return null;
      }
      const role = roleReply[1];
      const expiresAt = Number(scoreReply[1]);
      if ((role !== 'admin' && role !== 'user') || !(expiresAt > now)) return null;
      return role;
    },

    async countAttempt(counters, limit, windowSeconds) {
      const wait = Number(await countLoginAttempt(counters.map(counterKey), [limit, windowSeconds]));
      return wait > 0 ? wait : null;
    },
    async clearFailures(counters) {
      if (counters.length > 0) await redis.del(...counters.map(counterKey));
    },

    async putSignIn(state, payload, ttlSeconds) {
      await redis.set(keys.oidcSignIn(state), payload, 'EX', ttlSeconds);
    },
    takeSignIn: (state) => redis.getdel(keys.oidcSignIn(state)),
  };
}
