// The refusals Warren's Lua scripts (src/store/scripts/) answer with. A script refuses with an
// error reply whose first word is a Warren code (`WARREN_FENCED attempt 3 no longer holds the
// run`); the loader (scripts.ts) passes each script's error through scriptRefusal, so its caller
// gets the code's error, whose message is the rest of the reply.
import { ReplyError } from 'ioredis';
import { defineError, type WarrenError, type WarrenErrorClass } from '../errors.js';

/**
 * The attempt that wrote no longer holds its run: a newer attempt took it over (the worker was
 * paused past its lock, or cut off from Redis), or the run is gone. Every fenced script refuses
 * so (includes/fence.lua); the worker that meets it stops and writes nothing more.
 */
export const FencedError = defineError('WARREN_FENCED', 409);
/** A root checkpoint that does not descend from the thread's head, nor from the run's fork point. */
export const LineageError = defineError('WARREN_LINEAGE', 409);

/** A script that cannot be loaded or called as shipped (a bad include, keys of two slots, a missing script): a bug in Warren. */
export const ScriptInvalidError = defineError('WARREN_SCRIPT_INVALID', 500);

/** Every code a script refuses with, and its error: the one place a script's reply is read. */
const REFUSALS: ReadonlyMap<string, WarrenErrorClass> = new Map([FencedError, LineageError].map((cause) => [cause.code, cause]));

/** A script's error reply that starts with one of Warren's codes, as that code's error; any other error as is. */
export function scriptRefusal<E>(err: E): E | WarrenError {
  if (!(err instanceof ReplyError)) return err;
  const reply = (err as Error).message;
  const space = reply.indexOf(' ');
  const cause = REFUSALS.get(space < 0 ? reply : reply.slice(0, space));
  return cause ? new cause(space < 0 ? '' : reply.slice(space + 1), { cause: err }) : err;
}

/** True for Redis's refusal of a write from an attempt that no longer holds its run. */
export const isFenceRefusal = (err: unknown): boolean => scriptRefusal(err) instanceof FencedError;

/** True for Redis's refusal of a checkpoint that does not descend from the thread's head. */
export const isLineageRefusal = (err: unknown): boolean => scriptRefusal(err) instanceof LineageError;
