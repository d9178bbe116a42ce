// Every error Warren throws on purpose. Each carries an HTTP status and a stable code, so the
// one error handler can answer `{detail}` without knowing where the error came from.
// Nothing here imports Fastify: stores and workers throw these too.

/**
 * An error with a cause Warren names: `code` is stable (WARREN_<CAUSE>, as fastify's FST_ERR_*),
 * and it alone decides `statusCode`, the HTTP status a client is answered with.
 */
export class WarrenError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What defineError returns: a class for one cause, carrying its code and status. */
export interface WarrenErrorClass {
  new (message: string, options?: ErrorOptions): WarrenError;
  readonly code: string;
  readonly statusCode: number;
}

/**
 * Declares the error for one cause: its code and the HTTP status that code maps to, once. Each
 * area declares its own in `<area>.errors.ts` beside its code; README's error table lists them all
 * (a test keeps the two in step). `throw new ThreadBusyError('…')`, `err instanceof ThreadBusyError`.
 */
export function defineError(code: `WARREN_${string}`, statusCode: number): WarrenErrorClass {
  const cause = class extends WarrenError {
    static readonly code = code;
    static readonly statusCode = statusCode;
    constructor(message: string, options?: ErrorOptions) {
      super(code, statusCode, message, options);
    }
  };
  // Stack traces and logs name the cause: WARREN_THREAD_BUSY → ThreadBusyError.
  const name = code.slice('WARREN_'.length).toLowerCase().replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
  Object.defineProperty(cause.prototype, 'name', { value: `${name}Error` });
  Object.defineProperty(cause, 'name', { value: `${name}Error` });
  return cause;
}

// ── causes every area meets ───────────────────────────────────────────────────────────────

/** The request cannot be read as sent (a body, a path or a header that is not what it must be). */
export const MalformedRequestError = defineError('WARREN_MALFORMED_REQUEST', 400);
/** The request is well-formed, but a value in it is not acceptable. */
export const InvalidInputError = defineError('WARREN_INVALID_INPUT', 422);
/** Redis could not be reached; retrying shortly may work. */
export const RedisUnreachableError = defineError('WARREN_REDIS_UNREACHABLE', 503);
/** The disk (or a quota) ran out while writing for a client; nothing half-written is kept. */
export const DiskFullError = defineError('WARREN_DISK_FULL', 507);
/**
 * A state Warren's own code must never reach (a bug, not the client's doing). Like any 500 it is
 * answered with a generic body; the message is for the log.
 */
export const InternalInvariantError = defineError('WARREN_INTERNAL_INVARIANT', 500);
/** A LangGraph API field Warren does not implement, refused by name rather than ignored. */
export const OptionUnsupportedError = defineError('WARREN_OPTION_UNSUPPORTED', 422);

/**
 * A refusal with a status chosen elsewhere: a custom auth module's `HTTPException` (any 4xx, or
 * a 5xx its author wrote for clients), with the headers it asked for.
 */
export class HttpStatusError extends WarrenError {
  constructor(
    statusCode: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super('WARREN_AUTH_HANDLER_REFUSED', statusCode, message);
  }
}

/** How ioredis (and BullMQ through it) fails a command because Redis is not there to answer it. */
// A plain `ECONNREFUSED` is not among them: an MCP server or a model endpoint refuses that way too.
const REDIS_UNREACHABLE_MESSAGES = [
  'Command timed out',
  'Connection is closed.',
  "Stream isn't writeable",
  // A Redis Cluster that is down, or whose state is not ok (a master is gone).
  "Cluster isn't ready",
  'CLUSTERDOWN',
  'Too many Cluster redirections',
];

/** True when `err`, or an error it was caused by, says Redis could not be reached. */
export function isRedisUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'MaxRetriesPerRequestError') return true;
    if (REDIS_UNREACHABLE_MESSAGES.some((m) => e instanceof Error && e.message.startsWith(m))) return true;
  }
  return false;
}

/** A Redis outage as the client sees it: a 503 to retry; any other error is returned as is. */
export function asUnavailableError<E>(err: E): E | WarrenError {
  if (isWarrenError(err) || !isRedisUnreachable(err)) return err;
  return new RedisUnreachableError('Service unavailable: Redis is unreachable. Retry shortly.', { cause: err });
}

/** A write as a client may see it: `what` was being written, under `where`; never an absolute path. */
export interface WriteTarget {
  what: string;
  /** The folder as the operator knows it (`WARREN_HOME`, `the skills folder`), if known. */
  where?: string;
}

/**
 * The one place that recognises a full disk: ENOSPC, or EDQUOT (a quota, the same thing for the
 * client), becomes an InsufficientStorageError naming `target`; any other error is returned as is.
 */
export function asStorageError<E>(err: E, target: WriteTarget): E | WarrenError {
  const code = errnoCode(err);
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return err;
  const disk = target.where ? `the disk holding ${target.where}` : 'the disk';
  const state = code === 'EDQUOT' ? `the quota on ${disk} is used up` : `${disk} is full`;
  return new DiskFullError(`Insufficient storage: ${state} while writing ${target.what}.`, { cause: err });
}

// ── start-up and configuration ────────────────────────────────────────────────────────────

/** A configuration fault found at boot: the process prints the message and exits. */
export class ConfigError extends Error {
  readonly code = 'WARREN_CONFIG_INVALID';
}

// ── run execution (never sent as an HTTP status; they become `error` stream events) ─────────

/** A run failed for a reason the user can act on; the message is safe to show. */
export class RunError extends Error {
  readonly code = 'WARREN_RUN_FAILED';
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * This worker no longer holds the run: a newer attempt took it over (the worker was paused past
 * its lock, or cut off from Redis), or the run is gone. The worker stops and writes nothing more.
 */
export class RunLostError extends Error {
  override readonly name = 'RunLostError';
  readonly code = 'WARREN_RUN_LOST';
}

/** A sub-agent task ran out of its time; the parent run carries on and is told so. */
export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
  readonly code = 'WARREN_TASK_TIMEOUT';
}

/** The `code` of a Node system error (`ENOENT`, `ERR_WORKER_OUT_OF_MEMORY`...), if it has one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

export function isWarrenError(err: unknown): err is WarrenError {
  return err instanceof WarrenError;
}

// ── document conversion (an upload still succeeds; the message explains what went wrong) ───

/** A document could not be turned into Markdown: unsupported, corrupt, too big, or no text. */
export class ConversionError extends Error {
  readonly code = 'WARREN_CONVERSION_FAILED';
}
