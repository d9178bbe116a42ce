// JSON for Redis hash fields. Parsing never throws: a damaged field reads as the fallback, and the
// store that read it is told so (once per key), so the damage is seen rather than silently hidden.
import type { Logger } from 'pino';

/**
 * Hears of a stored value that is not JSON. `key` names where it was read: the Redis key, with
 * `#field` for one field of a hash. The reader carries on with its fallback: one damaged record
 * must not break every list it is in.
 */
export type OnDamagedRecord = (key: string, err: unknown) => void;

/** Reads a stored JSON value; a damaged one reads as `fallback` and is reported under `key`. */
export type JsonReader = <T>(raw: string | null | undefined, fallback: T, key: string) => T;

/** For stores built without a logger (tests, tools): damage reads as the fallback, unreported. */
export const ignoreDamaged: OnDamagedRecord = () => undefined;

export function jsonReader(onDamaged: OnDamagedRecord): JsonReader {
  return <T>(raw: string | null | undefined, fallback: T, key: string): T => {
    if (raw === null || raw === undefined || raw === '') return fallback;
    try {
      return JSON.parse(raw) as T;
    } catch (err) {
      onDamaged(key, err);
      return fallback;
    }
  };
}

/** Keys remembered as reported; past this many the memory starts over (a key may then warn again). */
const REMEMBERED_KEYS = 10_000;

/**
 * Warns on `log` the first time each key is found damaged: a record read on every request would
 * otherwise repeat the same line for ever.
 */
export function warnOncePerKey(log: Pick<Logger, 'warn'>): OnDamagedRecord {
  const reported = new Set<string>();
  return (key, err) => {
    if (reported.has(key)) return;
    if (reported.size >= REMEMBERED_KEYS) reported.clear();
    reported.add(key);
    log.warn({ key, err }, 'a stored record is not JSON: read as its default (warned once per key)');
  };
}

/** True when every key of `filter` deep-equals the same key of `target` (LangGraph's metadata filter). */
export function matchesFilter(target: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([k, v]) => deepEqual(target[k], v));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
