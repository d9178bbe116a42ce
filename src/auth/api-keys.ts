// API keys, each acting for an identity: a plain key for the anonymous admin (what every key
// meant before identities), a `{key, user, role}` entry for that user.
import { timingSafeEqual } from 'node:crypto';
import type { AuthConfig } from '../config/app-config.schemas.js';
import { ConfigError } from '../errors.js';
import { secretDigest } from './constant-time.js';
import { ANONYMOUS, type Identity } from './identity.js';

export interface KeyEntry {
  key: string;
  identity: Identity;
}

/** The configured keys (`WARREN_API_KEYS`, then `auth.api_keys`) with the identity each acts for. */
export function keyEntries(envKeys: readonly string[], configured: AuthConfig['api_keys']): KeyEntry[] {
  const entries: KeyEntry[] = envKeys.map((key) => ({ key, identity: ANONYMOUS }));
  for (const entry of configured) {
    if (typeof entry === 'string') entries.push({ key: entry, identity: ANONYMOUS });
    else entries.push({ key: entry.key, identity: Object.freeze({ user: entry.user, role: entry.role ?? 'user', permissions: [] }) });
  }
  const seen = new Map<string, string>();
  for (const { key, identity } of entries) {
    if (key.length === 0) throw new ConfigError('An API key is empty.');
    const other = seen.get(key);
    // One key for two users would make the first win silently; never name the key itself.
    if (other !== undefined && other !== identity.user) throw new ConfigError(`One API key is configured for two users ("${other}" and "${identity.user}").`);
    seen.set(key, identity.user);
  }
  return entries;
}

/**
 * A lookup that takes as long for a wrong key as for a right one. Comparing fixed-length digests
 * hides the key's length, and every configured key is compared, with no early exit, so the time
 * does not tell which key (if any) nearly matched.
 */
export function createKeyLookup(entries: readonly KeyEntry[]): (candidate: string) => Identity | null {
  const expected = entries.map((entry) => ({ digest: secretDigest(entry.key), identity: entry.identity }));
  return (candidate) => {
    const given = secretDigest(candidate);
    let found: Identity | null = null;
    for (const entry of expected) {
      const same = timingSafeEqual(entry.digest, given);
      found = same && found === null ? entry.identity : found;
    }
    return found;
  };
}
