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

export class ValidationError extends WarrenError {
  readonly statusCode = 422;
  readonly code = 'VALIDATION';
}

// ── 5xx a client may retry: answered with the message, which is written for clients ───────

/** The server could not do it now (a lock on a shared file not had in time); retrying may work. */
export class ServiceUnavailableError extends WarrenError {
  readonly statusCode = 503;
  readonly code = 'SERVICE_UNAVAILABLE';
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
