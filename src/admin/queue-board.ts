// Bull Board at /admin/queues: every BullMQ queue of this deployment (the run queue, or its
// shards on a Redis Cluster, model tasks, memory updates, webhooks and cron ticks), for admins
// only. It shows; it changes nothing unless `admin.queues.actions` allows retries, cleans and
// the like. Nothing of it touches a run: its routes answer only under /admin/queues, and its
// queues (one connection each) are opened on the first request an admin makes, never at boot.
import type { ControllerHandlerReturnType } from '@bull-board/api/typings/app';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AdminRequiredError } from '../auth/auth.errors.js';
import { isAdmin } from '../auth/identity.js';
import type { AdminConfig } from '../config/app-config.schemas.js';
import { cronQueueName } from '../crons/crons.js';
import { isWarrenError } from '../errors.js';
import { memoryQueueName } from '../memory/memory.js';
import { dropConnection, runQueueNames } from '../queue/run-queue.js';
import { taskQueueName } from '../queue/task-queue.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import { webhookQueueName } from '../webhooks/webhooks.js';
import { QueueBoardReadOnlyError } from './admin.errors.js';

export const QUEUE_BOARD_PREFIX = '/admin/queues';

export interface QueueBoardSettings {
  /** Retry, clean, promote, pause… allowed; otherwise every request but a read is refused. */
  actions: boolean;
}

/** What `admin.queues` asks for: null when the dashboard is off. */
export function queueBoardSettings(queues: AdminConfig['queues']): QueueBoardSettings | null {
  if (queues === false) return null;
  return { actions: queues !== true && queues.actions === true };
}

/** The queues the dashboard shows, in the order it lists them: runs first. */
export function boardQueueNames(connection: ConnectionOptions, runQueueName: string): string[] {
  return [
    ...runQueueNames(connection, runQueueName),
    taskQueueName(runQueueName),
    memoryQueueName(runQueueName),
    webhookQueueName(runQueueName),
    cronQueueName(runQueueName),
  ];
}

export interface QueueBoardOptions extends QueueBoardSettings {
  /** BullMQ's connection for queues that only read and add (the API's `queueOptions`). */
  connection: ConnectionOptions;
  /** WARREN_QUEUE: the run queue's name, which the others derive theirs from. */
  runQueueName: string;
  log: Logger;
  /** True while Redis does not answer: closing then drops the connections without a goodbye. */
  redisAway: () => boolean;
}

const READS = new Set(['GET', 'HEAD']);
const GENERIC_500 = { detail: 'Internal server error' };

/** Registers the dashboard in `scope` (mounted at QUEUE_BOARD_PREFIX by buildApp). */
export async function queueBoardRoutes(scope: FastifyInstance, options: QueueBoardOptions): Promise<void> {
  const { connection, runQueueName, actions, log, redisAway } = options;
  // Loaded here, not with the module: a deployment with the dashboard off never loads its code.
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
  ]);
  const adapter = new FastifyAdapter();
  adapter.setBasePath(QUEUE_BOARD_PREFIX);
  const board = createBullBoard({ queues: [], serverAdapter: adapter, options: { uiConfig: { boardTitle: 'Warren queues' } } });
  // The board's routes answer errors through this (Fastify gives them the board's own handler):
  // our `{detail}` shape, and a 5xx's text only in the log, as src/http/error-handler.ts does.
  adapter.setErrorHandler((err: Error): ControllerHandlerReturnType => {
    // Its type lists the statuses the board itself answers; the adapter sends any.
    if (isWarrenError(err)) return { status: err.statusCode as ControllerHandlerReturnType['status'], body: { detail: err.message } };
    log.error({ err }, 'queue dashboard request failed');
    return { status: 500, body: GENERIC_500 };
  });

  let queues: Queue[] | null = null;
  const openQueues = () => {
    const errors = connectionErrorLog(log, { connection: 'api:queue-board' });
    queues = boardQueueNames(connection, runQueueName).map((name) => {
      const queue = new Queue(name, { connection, prefix: bullPrefixFor(connection, name) });
      // Without a listener, a Redis blip would surface as an unhandled 'error' event.
      queue.on('error', errors.error);
      return queue;
    });
    board.replaceQueues(queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: !actions })));
  };

  scope.addHook('onRequest', async (request, reply) => {
    if (!isAdmin(request.identity)) {
      throw new AdminRequiredError('The queue dashboard shows every user\'s runs and jobs: it needs an admin.');
    }
    // The board's own read-only mode covers the queue actions it knows; this covers every route.
    if (!actions && !READS.has(request.method)) {
      void reply.header('allow', 'GET, HEAD');
      throw new QueueBoardReadOnlyError(`The queue dashboard is read-only: ${request.method} is refused. Set admin.queues: {actions: true} in config.yaml to allow retries, cleans and the like.`);
    }
    if (queues === null) openQueues();
  });
  // A Redis that is away would never answer the goodbye; the queues hold no work to wait for.
  scope.addHook('onClose', async () => {
    const away = redisAway();
    await Promise.all((queues ?? []).map((queue) => (away ? dropConnection(queue) : queue.close())));
  });
  await scope.register(adapter.registerPlugin());
}
