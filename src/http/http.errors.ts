// The causes the API app's own plumbing (app.ts) refuses a request with, before any route runs.
import { defineError } from '../errors.js';

/** The user (or, unauthenticated, the address) sent more requests than rate_limits allows in its window. */
export const RateLimitedError = defineError('WARREN_RATE_LIMITED', 429);
