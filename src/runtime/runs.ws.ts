// WebSocket on the path of endpoint 5. The first text message is the run input (the POST
// body); then every event goes out as `{event, data, id}`. The client may send
// `{"action":"cancel"}`, or open a new connection with `{"action":"join", run_id,
// last_event_id}` to resume. After `end` the server closes with 1000; a bad input gets an
// `error` message with `{detail}` and close 1008.
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import { isWarrenError } from '../errors.js';
import { isStreamCursor, type StreamEntry } from '../store/run-stream.js';
import { ThreadParamsSchema, IdSchema, type ThreadParams } from './common.schemas.js';
import { RunCreateSchema } from './runs.schemas.js';
import { CLIENT_QUEUE_BYTES, type ClientFollow, type RunFollow } from '../streams/run-follow.js';
import type { RunsService } from './runs.service.js';

const JoinMessage = Compile(
  Type.Object({ action: Type.Literal('join'), run_id: IdSchema, last_event_id: Type.Optional(Type.String({ maxLength: 64 })) }),
);
const CancelMessage = Compile(Type.Object({ action: Type.Literal('cancel') }));
const RunInput = Compile(RunCreateSchema);

// Entry data is already one line of JSON (the worker wrote it with toWireJson), so the message
// is spliced together once per entry, not parsed and serialised again for every client.
const wsMessages = new WeakMap<StreamEntry, string>();

function messageOf(entry: StreamEntry): string {
  let message = wsMessages.get(entry);
  if (message === undefined) {
    message = `{"event":${JSON.stringify(entry.event)},"data":${entry.data},"id":${JSON.stringify(entry.id)}}`;
    wsMessages.set(entry, message);
  }
  return message;
}

const CLOSE_NORMAL = 1000;
const CLOSE_POLICY = 1008;
const CLOSE_ERROR = 1011;

export interface RunWebSocketDeps {
  runs: RunsService;
  follow: RunFollow;
}

export async function runWebSocketRoutes(app: FastifyInstance, deps: RunWebSocketDeps): Promise<void> {
  app.get<{ Params: ThreadParams }>(
    '/threads/:thread_id/runs/stream',
    { websocket: true, schema: { tags: ['runs'], params: ThreadParamsSchema, hide: true } },
    (socket: WebSocket, req) => {
      const connection = new RunSocket(socket, req, deps);
      socket.on('message', (raw: Buffer, isBinary: boolean) => connection.received(raw, isBinary));
      socket.on('close', () => connection.closed());
    },
  );
}

/** One WebSocket connection: the run it starts or joins, and its follow of the run's stream. */
class RunSocket {
  private readonly threadId: string;
  private runId: string | null = null;
  private finished = false;
  /** Only the connection that started a run cancels it on close, and only if it asked to. */
  private cancelOnClose = false;
  private readonly closeConnection: () => void;
  /**
   * Bytes handed to the socket and not yet written out: past CLIENT_QUEUE_BYTES the client
   * takes no more, and its follow resumes once everything it was given is written.
   */
  private backlog = 0;
  private following: ClientFollow | null = null;

  constructor(
    private readonly socket: WebSocket,
    private readonly req: FastifyRequest<{ Params: ThreadParams }>,
    private readonly deps: RunWebSocketDeps,
  ) {
    this.threadId = req.params.thread_id;
    this.closeConnection = deps.follow.connection('websocket');
  }

  /** A message from the client: the run's input, a join, or a cancel. */
  received(raw: Buffer, isBinary: boolean): void {
    void this.handle(raw, isBinary).catch((err: unknown) => {
      if (isWarrenError(err)) return this.refuse(err.message);
      this.req.log.error({ err }, 'websocket run failed');
      this.refuse('Internal server error', CLOSE_ERROR);
    });
  }

  closed(): void {
    this.closeConnection();
    this.following?.stop();
    const id = this.runId;
    if (id && !this.finished && this.cancelOnClose) {
      // Like SSE's default on_disconnect: a client that goes away cancels its run.
      void this.deps.runs.cancelIfRunning(this.threadId, id).catch((err: unknown) => this.req.log.warn({ err }, 'cancel on websocket close failed'));
    }
  }

  private async handle(raw: Buffer, isBinary: boolean): Promise<void> {
    const { runs } = this.deps;
    const { threadId } = this;
    if (isBinary) return this.refuse('Messages must be JSON text');
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      // Not JSON: the client is told so; nothing else is wrong.
      return this.refuse('Messages must be JSON text');
    }
    if (this.runId !== null) {
      if (CancelMessage.Check(message)) await runs.cancel(threadId, this.runId, 'interrupt');
      else this.refuse('Only {"action":"cancel"} is accepted while a run streams');
      return;
    }
    if (JoinMessage.Check(message)) {
      const after = message.last_event_id ?? '0';
      if (!isStreamCursor(after)) return this.refuse('last_event_id is not an event id of this stream');
      await runs.get(threadId, message.run_id);
      return this.follow(message.run_id, after);
    }
    if (!RunInput.Check(message)) {
      const first = RunInput.Errors(message)[0];
      return this.refuse(`Invalid run input: ${first ? `${first.instancePath || '/'} ${first.message}` : 'rejected'}`);
    }
    const created = await runs.create(threadId, message, this.req.identity);
    this.cancelOnClose = (message.on_disconnect ?? 'cancel') === 'cancel';
    this.follow(created.run.run_id, '0');
  }

  private follow(id: string, afterId: string): void {
    this.runId = id;
    this.following = this.deps.follow.client(this.threadId, id, afterId, 'websocket', {
      onEntries: (entries) => this.sendEntries(entries),
      onDone: () => {
        this.finished = true;
        this.socket.close(CLOSE_NORMAL, 'end');
      },
    });
  }

  /** Sends entries until CLIENT_QUEUE_BYTES wait for the client; returns how many it took. */
  private sendEntries(entries: readonly StreamEntry[]): number {
    const { socket } = this;
    for (const [i, entry] of entries.entries()) {
      if (socket.readyState !== socket.OPEN) return entries.length;
      if (this.backlog >= CLIENT_QUEUE_BYTES) return i;
      const message = messageOf(entry);
      this.backlog += message.length;
      socket.send(message, () => {
        this.backlog -= message.length;
        if (this.backlog === 0) this.following?.resume();
      });
    }
    return entries.length;
  }

  private refuse(detail: string, code = CLOSE_POLICY): void {
    const { socket } = this;
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ event: 'error', data: { detail } }));
    socket.close(code, detail.slice(0, 120));
  }
}
