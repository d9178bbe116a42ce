// The one error path. Every error becomes `{detail: string}` (a route scope that speaks another
// API's error shape may pass a DetailShaper to wrap that sentence); 5xx bodies are generic and the
// full error goes to the request's log only, except a Warren error's other than a 500 (507: the
// disk is full; 503: retry), whose message is written for clients. A Warren 500 (an internal
// invariant, a corrupt record) is a fault like any other: its message is for the log. A custom
// auth module's own 5xx keeps its message: its author wrote it for clients. The handler ends in a
// fixed body that cannot throw.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asStorageError, asUnavailableError, HttpStatusError, isWarrenError } from '../errors.js';

const GENERIC_500 = '{"detail":"Internal server error"}';

/** Fastify's own error codes that are the client's fault, with the status we answer. */
const FASTIFY_CLIENT_ERRORS: Record<string, number> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_VALIDATION: 422,
  FST_REQ_FILE_TOO_LARGE: 413,
  FST_PARTS_LIMIT: 413,
  FST_FILES_LIMIT: 413,
  FST_FIELDS_LIMIT: 413,
  FST_PROTO_VIOLATION: 400,
  FST_INVALID_MULTIPART_CONTENT_TYPE: 415,
};

export function statusOf(err: FastifyError | Error): number {
  if (isWarrenError(err)) return err.statusCode;
  const fe = err as FastifyError;
  if (fe.validation) return 422;
  if (fe.code && FASTIFY_CLIENT_ERRORS[fe.code]) return FASTIFY_CLIENT_ERRORS[fe.code] as number;
  if (err instanceof SyntaxError && (err as { statusCode?: number }).statusCode === 400) return 400;
  const status = fe.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** The value at a validation error's JSON pointer in the part of the request it was found in. */
function valueAt(request: FastifyRequest, context: string | undefined, instancePath: string): unknown {
  const parts: Record<string, unknown> = { body: request.body, querystring: request.query, params: request.params, headers: request.headers };
  let v: unknown = parts[context ?? 'body'];
  for (const key of instancePath.split('/').slice(1)) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

function validationDetail(err: FastifyError, request: FastifyRequest): string {
  const errors = err.validation ?? [];
  const first = errors[0];
  if (!first) return err.message;
  const where = err.validationContext ?? 'request';
  const pathOf = (instancePath: string) => (instancePath ? `${where}${instancePath.replace(/\//g, '.')}` : where);
  // A choice among literals (a stream mode) fails once per literal: together they are the allowed values.
  const choice = errors.find((e) => e.keyword === 'const' || e.keyword === 'enum');
  if (choice) {
    const allowed = [
      ...new Set(errors.flatMap((e) => (e.instancePath !== choice.instancePath ? [] : e.keyword === 'const' ? [e.params.allowedValue] : e.keyword === 'enum' ? (e.params.allowedValues as unknown[]) : []))),
    ];
    const given = JSON.stringify(valueAt(request, err.validationContext, choice.instancePath)) ?? 'nothing';
    return `${pathOf(choice.instancePath)} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, but it is ${given}`;
  }
  const params = first.params as Record<string, unknown> | undefined;
  const extra = params && typeof params.additionalProperty === 'string' ? ` (${params.additionalProperty})` : '';
  return `${pathOf(first.instancePath)} ${first.message ?? 'is invalid'}${extra}`;
}

/** Whether the client is told the error's message: a Warren error's, but for a Warren 500 (its message is for the log). */
const writtenForClients = (err: Error, status: number): boolean => isWarrenError(err) && (status !== 500 || err instanceof HttpStatusError);

/**
 * What a scope answers as `detail` for a client error, given the error and Warren's sentence for
 * it: DeerFlow's `/api/v1/auth` wraps some as `{code, message}`. The sentence is always kept.
 */
export type DetailShaper = (err: Error, sentence: string) => unknown;

const plainSentence: DetailShaper = (_err, sentence) => sentence;

/** The error handler, with `shape` deciding the `detail` of the 4xx (and client-facing 5xx) it answers. */
export function createErrorHandler(shape: DetailShaper = plainSentence) {
  return (raw: FastifyError, request: FastifyRequest, reply: FastifyReply): void => answerError(raw, request, reply, shape);
}

function answerError(raw: FastifyError, request: FastifyRequest, reply: FastifyReply, shape: DetailShaper): void {
  // A full disk that no write site named (a folder being created, say) still gets its 507.
  // A Redis outage is a 503 the client may retry, never a 500.
  const err = asUnavailableError(asStorageError(raw, { what: 'a file for this request' }));
  const status = statusOf(err);
  try {
    if (status >= 500 && !writtenForClients(err, status)) {
      request.log.error({ err }, 'request failed');
      void reply.code(500).type('application/json').send(GENERIC_500);
      return;
    }
    // A Warren 5xx (a full disk, a lock to retry) is the server's trouble, if a passing one: worth a warning.
    request.log[status >= 500 ? 'warn' : 'info']({ err: { message: err.message, code: err.code }, statusCode: status }, 'request rejected');
    const detail = 'validation' in err && err.validation ? validationDetail(err, request) : err.message || 'Bad request';
    // A custom auth module's HTTPException brings its own headers (WWW-Authenticate, say).
    if (err instanceof HttpStatusError) void reply.headers(err.headers);
    void reply.code(status).send({ detail: shape(err, detail) });
  } catch (inner) {
    request.log.error({ err: inner }, 'error handler failed');
    reply.raw.statusCode = 500;
    reply.raw.setHeader('content-type', 'application/json');
    reply.raw.end(GENERIC_500);
  }
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  void reply.code(404).send({ detail: `Not found: ${request.method} ${request.url.split('?')[0]}` });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(createErrorHandler());
  app.setNotFoundHandler(notFoundHandler);
}
