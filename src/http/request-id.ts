// Request ids: an incoming X-Request-Id is kept only when it is short and plain, so a client
// cannot inject into our logs; otherwise a fresh UUID. The id goes back in the response.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
/** Which API replica answered: for operators following a client across replicas. */
export const INSTANCE_HEADER = 'x-warren-instance';
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function genRequestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}
