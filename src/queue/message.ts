// Checks a message that crossed the queue (a job's data, a stored run's kwargs) against its
// schema, on receipt: what one process wrote is not trusted to be what another expects (an older
// or newer release, a hand-edited record).
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { RunError } from '../errors.js';

/** The message typed by its schema, or a RunError (`errorName`) listing what does not match. */
export function checkMessage<T extends TSchema>(schema: T, value: unknown, errorName: string, what: string): Static<T> {
  if (Value.Check(schema, value)) return value;
  const problems = [...Value.Errors(schema, value)].slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
  throw new RunError(errorName, `Invalid ${what}: ${problems.join('; ')}`);
}
