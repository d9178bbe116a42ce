// Comparing secrets (API keys, signatures, verification tokens) so that the time taken tells
// nothing: both sides are hashed to one length first, then compared without an early exit.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The fixed-length digest a secret is compared by. */
export const secretDigest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Whether two secrets are equal, in the same time whatever they are. */
export const sameSecret = (a: string, b: string): boolean => timingSafeEqual(secretDigest(a), secretDigest(b));
