// Passwords: scrypt from Node's crypto (memory-hard: each guess costs 32 MiB as well as time),
// with a random salt per password. A hash is stored as `scrypt$<N>$<r>$<p>$<salt>$<key>`
// (base64url), so a later change of cost still verifies the hashes made before it.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { COMMON_PASSWORDS } from './common-passwords.js';
import { WeakPasswordError } from './accounts.errors.js';

export const MIN_PASSWORD_LENGTH = 8;
/** Longer than any passphrase; bounds the work one request can ask for. */
export const MAX_PASSWORD_LENGTH = 256;

const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

const derive = (password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; leave room above it (Node's default ceiling is exactly 32 MiB).
    const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash that never matches, made once: checking it costs what a real check costs, so a missing account takes as long as a wrong password. */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; a missing or unreadable hash never matches, after the same work. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? (await (decoy ??= hashPassword(randomBytes(24).toString('base64url'))))).split('$');
  const [scheme, n, r, p, salt, key] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || !salt || !key) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every((v) => Number.isInteger(v) && v > 0) || cost.N > 2 ** 20) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** DeerFlow's rules (length, the common-password list) and one more: not the email itself. Throws WeakPasswordError naming the rule. */
export function checkPasswordStrength(password: string, email?: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new WeakPasswordError(`The password is too short: at least ${MIN_PASSWORD_LENGTH} characters.`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new WeakPasswordError(`The password is too long: at most ${MAX_PASSWORD_LENGTH} characters.`);
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) throw new WeakPasswordError('The password is too common; choose a stronger password.');
  if (email !== undefined && (lower === email.toLowerCase() || lower === email.toLowerCase().split('@')[0])) {
    throw new WeakPasswordError('The password must not be the email address.');
  }
}
