// Fastify's per-request log lines, with health and metrics scrapes at debug: load balancers and
// Prometheus poll them every few seconds, and at info they would bury everything else.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Routes polled by machines; their request lines are logged at debug. */
export const SCRAPE_ROUTES: ReadonlySet<string> = new Set(['/ok', '/health', '/ready', '/metrics']);

const isScrape = (request: FastifyRequest): boolean => SCRAPE_ROUTES.has(request.routeOptions?.url ?? '');

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (isScrape(request)) request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // A scrape that throws is still worth its line at the usual level; a 503 from /ready is its answer.
    if (isScrape(request) && !error) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    else super.requestCompleted(error, request, reply);
  }
}
