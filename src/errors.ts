// Every error Warren throws on purpose. Each carries an HTTP status and a stable code, so the
// one error handler can answer `{detail}` without knowing where the error came from.
// Nothing here imports Fastify: stores and workers throw these too.

export abstract class WarrenError extends Error {
  abstract readonly statusCode: number;
  abstract readonly code: string;
}

// ── 4xx: the client's fault, always answered with the message ─────────────────────────────

export class BadRequestError extends WarrenError {
  readonly statusCode = 400;
  readonly code = 'BAD_REQUEST';
}

export class UnauthorizedError extends WarrenError {
  readonly statusCode = 401;
  readonly code = 'UNAUTHORIZED';
}

export class ForbiddenError extends WarrenError {
  readonly statusCode = 403;
  readonly code = 'FORBIDDEN';
}

export class NotFoundError extends WarrenError {
  readonly statusCode = 404;
  readonly code = 'NOT_FOUND';
}

export class ConflictError extends WarrenError {
  readonly statusCode = 409;
  readonly code = 'CONFLICT';
}

export class PayloadTooLargeError extends WarrenError {
  readonly statusCode = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class UnsupportedMediaTypeError extends WarrenError {
  readonly statusCode = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

export class TooManyRequestsError extends WarrenError {
  readonly statusCode = 429;
  readonly code = 'TOO_MANY_REQUESTS';
}

/**
 * A refusal with a status chosen elsewhere: a custom auth module's `HTTPException` (any 4xx, or
 * a 5xx its author wrote for clients), with the headers it asked for.
 */
export class HttpStatusError extends WarrenError {
  readonly code = 'HTTP_STATUS';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export class ValidationError extends WarrenError {
  readonly statusCode = 422;
  readonly code = 'VALIDATION';
}

// ── 5xx the client is told about: the message names the cause and nothing of the host ──────

/** The server could not do it now (a lock on a shared file not had in time); retrying may work. */
export class ServiceUnavailableError extends WarrenError {
  readonly statusCode = 503;
  readonly code = 'SERVICE_UNAVAILABLE';
}

/** The disk (or the quota) ran out while the API wrote for a client; nothing half-written is kept. */
export class InsufficientStorageError extends WarrenError {
  readonly statusCode = 507;
  readonly code = 'INSUFFICIENT_STORAGE';
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
export function asUnavailableError<E>(err: E): E | ServiceUnavailableError {
  if (isWarrenError(err) || !isRedisUnreachable(err)) return err;
  return new ServiceUnavailableError('Service unavailable: Redis is unreachable. Retry shortly.', { cause: err });
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
export function asStorageError<E>(err: E, target: WriteTarget): E | InsufficientStorageError {
  const code = errnoCode(err);
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return err;
  const disk = target.where ? `the disk holding ${target.where}` : 'the disk';
  const state = code === 'EDQUOT' ? `the quota on ${disk} is used up` : `${disk} is full`;
  return new InsufficientStorageError(`Insufficient storage: ${state} while writing ${target.what}.`, { cause: err });
}

// ── start-up and configuration ────────────────────────────────────────────────────────────

/** A configuration fault found at boot: the process prints the message and exits. */
export class ConfigError extends Error {
  readonly code = 'CONFIG';
}

// ── run execution (never sent as an HTTP status; they become `error` stream events) ─────────

/** A run failed for a reason the user can act on; the message is safe to show. */
export class RunError extends Error {
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
}

/** A sub-agent task ran out of its time; the parent run carries on and is told so. */
export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
}

/** True for Redis's refusal of a write from an attempt that no longer holds its run. */
export const isFenceRefusal = (err: unknown): boolean => err instanceof Error && err.message.startsWith('FENCED ');

/** True for Redis's refusal of a checkpoint that does not descend from the thread's head. */
export const isLineageRefusal = (err: unknown): boolean => err instanceof Error && err.message.startsWith('LINEAGE ');

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
  readonly code = 'CONVERSION';
}
