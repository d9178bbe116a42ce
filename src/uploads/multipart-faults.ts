// The multipart parser's own faults (busboy's untyped errors, @fastify/multipart's FST_* codes),
// each reworded as the client's fault with a sentence saying what was wrong. Busboy's errors
// carry no code, so they are known by their messages (pinned with the package's version).
import { errnoCode } from '../errors.js';
import type { UploadLimits } from '../gateway/gateway-deps.js';
import { UploadMalformedError, UploadNotMultipartError, UploadTooManyPartsError } from './uploads.errors.js';

/** The form fields a request may carry beside its files (busboy's `fields` limit). */
export const MAX_FORM_FIELDS = 20;

const ENDED_EARLY = /^Unexpected end of multipart data$|terminated early due to unexpected end of multipart data/;

/** What a parser fault means for the client, or undefined when `err` is not one. */
export function multipartFault(err: unknown, limits: UploadLimits, sawPart: boolean): Error | undefined {
  const code = errnoCode(err);
  const message = err instanceof Error ? err.message : '';
  if (code === 'FST_PARTS_LIMIT') {
    return new UploadTooManyPartsError(`Too many multipart parts: at most ${limits.maxFiles} files and ${MAX_FORM_FIELDS} form fields per request.`);
  }
  if (code === 'FST_FIELDS_LIMIT') return new UploadTooManyPartsError(`Too many form fields: at most ${MAX_FORM_FIELDS} per request beside the files.`);
  if (code === 'FST_PROTO_VIOLATION') {
    return new UploadMalformedError('A multipart part is named after a property of Object.prototype (such as "__proto__" or "constructor"): name file parts "files".');
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') return new UploadMalformedError('A form field declared as application/json does not hold valid JSON.');
  if (code === 'FST_MP_PREMATURE_CLOSE') return new UploadMalformedError('The request was closed before its multipart body was complete.');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return new UploadNotMultipartError('The request is not multipart/form-data: send the files in multipart parts named "files".');
  }
  if (message === 'Multipart: Boundary not found') {
    return new UploadMalformedError('The Content-Type header names no boundary: send "multipart/form-data; boundary=<the delimiter the body uses>".');
  }
  if (message.startsWith('The needle cannot be an empty')) return new UploadMalformedError('The boundary in the Content-Type header is empty.');
  if (message.startsWith('The needle cannot have a length')) {
    return new UploadMalformedError('The boundary in the Content-Type header is too long: RFC 2046 allows at most 70 characters.');
  }
  if (ENDED_EARLY.test(message)) {
    return new UploadMalformedError(
      sawPart
        ? 'The multipart body ended before its closing boundary: the upload was cut short.'
        : 'The multipart body holds no complete part delimited by the boundary of the Content-Type header: the boundary does not match the one the body uses, or the body was cut short.',
    );
  }
  return undefined;
}
