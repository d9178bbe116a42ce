// WebSocket on the path of endpoint 5. The first text message is the run input (the POST
// body); then every event goes out as `{event, data, id}`. The client may send
// `{"action":"cancel"}`, or open a new connection with `{"action":"join", run_id,
// last_event_id}` to resume. After `end` the server closes with 1000; a bad input gets an
// `error` message with `{detail}` and close 1008.
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
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
  const { runs, follow: runFollow } = deps;

  app.get<{ Params: ThreadParams }>(
    '/threads/:thread_id/runs/stream',
    { websocket: true, schema: { tags: ['runs'], params: ThreadParamsSchema, hide: true } },
    (socket: WebSocket, req) => {
      const threadId = req.params.thread_id;
      let runId: string | null = null;
      let finished = false;
      // Only the connection that started a run cancels it on close, and only if it asked to.
      let cancelOnClose = false;
      const closeConnection = runFollow.connection('websocket');

      const sendRaw = (text: string) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      };
      const send = (payload: unknown) => sendRaw(JSON.stringify(payload));
      const refuse = (detail: string, code = CLOSE_POLICY) => {
        send({ event: 'error', data: { detail } });
        socket.close(code, detail.slice(0, 120));
      };
      // Bytes handed to the socket and not yet written out: past CLIENT_QUEUE_BYTES the client
      // takes no more, and its follow resumes once everything it was given is written.
      let backlog = 0;
      let following: ClientFollow | null = null;
      const follow = (id: string, afterId: string) => {
        runId = id;
        following = runFollow.client(threadId, id, afterId, 'websocket', {
          onEntries: (entries) => {
            for (const [i, entry] of entries.entries()) {
              if (socket.readyState !== socket.OPEN) return entries.length;
              if (backlog >= CLIENT_QUEUE_BYTES) return i;
              const message = messageOf(entry);
              backlog += message.length;
              socket.send(message, () => {
                backlog -= message.length;
                if (backlog === 0) following?.resume();
              });
            }
            return entries.length;
          },
          onDone: () => {
            finished = true;
            socket.close(CLOSE_NORMAL, 'end');
          },
        });
      };

      socket.on('message', (raw: Buffer, isBinary: boolean) => {
        void (async () => {
          if (isBinary) return refuse('Messages must be JSON text');
          let message: unknown;
          try {
            message = JSON.parse(raw.toString('utf8'));
          } catch {
            // Not JSON: the client is told so; nothing else is wrong.
            return refuse('Messages must be JSON text');
          }
          if (runId !== null) {
            if (CancelMessage.Check(message)) await runs.cancel(threadId, runId, 'interrupt');
            else refuse('Only {"action":"cancel"} is accepted while a run streams');
            return;
          }
          if (JoinMessage.Check(message)) {
            const after = message.last_event_id ?? '0';
            if (!isStreamCursor(after)) return refuse('last_event_id is not an event id of this stream');
            await runs.get(threadId, message.run_id);
            return follow(message.run_id, after);
          }
          if (!RunInput.Check(message)) {
            const first = RunInput.Errors(message)[0];
            return refuse(`Invalid run input: ${first ? `${first.instancePath || '/'} ${first.message}` : 'rejected'}`);
          }
          const created = await runs.create(threadId, message, req.identity);
          cancelOnClose = (message.on_disconnect ?? 'cancel') === 'cancel';
          follow(created.run.run_id, '0');
        })().catch((err: unknown) => {
          if (isWarrenError(err)) return refuse(err.message);
          req.log.error({ err }, 'websocket run failed');
          refuse('Internal server error', CLOSE_ERROR);
        });
      });

      socket.on('close', () => {
        closeConnection();
        following?.stop();
        const id = runId;
        if (id && !finished && cancelOnClose) {
          // Like SSE's default on_disconnect: a client that goes away cancels its run.
          void runs.cancelIfRunning(threadId, id).catch((err: unknown) => req.log.warn({ err }, 'cancel on websocket close failed'));
        }
      });
    },
  );
}
