// Checks a message that crossed the queue (a job's data, a stored run's kwargs) against its
// schema, on receipt: what one process wrote is not trusted to be what another expects (an older
// or newer release, a hand-edited record).
import type { Static, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { Value } from 'typebox/value';
import { RunError } from '../errors.js';

/**
 * A cache of each schema's compiled checker, keyed by the schema (a module constant, so it holds
 * one entry per message kind and drops it with the schema). Interpreting a run's kwargs schema
 * took about 100 µs per run in the worker, compiled about 3 µs (#34).
 */
const checkers = new WeakMap<TSchema, Validator>();

function checkerFor(schema: TSchema): Validator {
  let checker = checkers.get(schema);
  if (!checker) {
    checker = Compile(schema);
    checkers.set(schema, checker);
  }
  return checker;
}

/** The message typed by its schema, or a RunError (`errorName`) listing what does not match. */
export function checkMessage<T extends TSchema>(schema: T, value: unknown, errorName: string, what: string): Static<T> {
  if (checkerFor(schema).Check(value)) return value as Static<T>;
  const problems = [...Value.Errors(schema, value)].slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
  throw new RunError(errorName, `Invalid ${what}: ${problems.join('; ')}`);
}
