// A local server that speaks Slack for one app, as Warren's Slack channel uses it: the Web API
// methods (auth.test, apps.connections.open, chat.postMessage, chat.update,
// files.getUploadURLExternal, the upload URL, files.completeUploadExternal) under /api/, file
// downloads (`url_private`, bot token required) under /files/, and Socket Mode on the WebSocket
// apps.connections.open hands out: `hello`, then `events_api` envelopes that the client must
// acknowledge. An envelope not acknowledged is delivered again on the next connection, as Slack
// retries, so a test sees whether a client ever drops one. Tests put users' messages in and read
// what the bot posted; the server counts open sockets, so two holders at once would show.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeFake, listenLocal } from './fake-server.js';
// ws ships no types of its own: ./ws.d.ts declares the server side, all a test needs of it.
import { WebSocketServer, type WebSocket } from 'ws';

export const BOT_USER = 'UBOT0001';

export interface PostedMessage {
  channel: string;
  ts: string;
  thread_ts: string | null;
  /** Every text the message showed: the posted one, then each chat.update. */
  texts: string[];
}

export interface UploadedFile {
  channel: string;
  thread_ts: string | null;
  filename: string;
  bytes: Buffer;
}

export interface SlackFile {
  id: string;
  name: string;
  size: number;
  mode: string;
  url_private: string;
  url_private_download: string;
}

export interface FakeSlack {
  /** The Web API's address, for channels.slack.base_url. */
  readonly apiUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly messages: PostedMessage[];
  readonly uploads: UploadedFile[];
  /** Sockets open now, the most open at one time, and every one ever opened. */
  readonly openSockets: number;
  readonly maxOpenSockets: number;
  readonly socketsOpened: number;
  /** Envelope ids acknowledged by a client. */
  readonly acked: Set<string>;
  /** Calls per Web API method. */
  readonly calls: Map<string, number>;
  /** A file the user shares: served at its url_private to the bot token. */
  addFile(name: string, bytes: Buffer): SlackFile;
  /** An `event_callback` body for an event (its id fresh). */
  eventBody(event: Record<string, unknown>): Record<string, unknown>;
  /** A user's DM to the bot, delivered over Socket Mode; returns the event body. */
  dm(user: string, text: string, files?: SlackFile[]): Record<string, unknown>;
  /** A mention of the bot in a channel (in a thread when `threadTs` is given), over Socket Mode. */
  mention(channel: string, user: string, text: string, threadTs?: string): Record<string, unknown>;
  /** Delivers an event body as an events_api envelope over Socket Mode (now, or on the next connection). */
  deliver(body: Record<string, unknown>): void;
  /** Cuts every open socket, as an outage would (no close frame). */
  dropSockets(): void;
  /** Answers the next `count` calls of a method with 429 and `Retry-After`. */
  throttle(method: string, count: number, retryAfterSeconds: number): void;
  /** Messages posted in a channel (or one thread of it). */
  in(channel: string, threadTs?: string): PostedMessage[];
  close(): Promise<void>;
}


async function bodyOf(req: IncomingMessage): Promise<{ fields: Record<string, unknown>; form: FormData | null; raw: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) return { fields: {}, form: await new Response(raw, { headers: { 'content-type': type } }).formData(), raw };
  if (type.startsWith('application/json')) return { fields: raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {}, form: null, raw };
  return { fields: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), form: null, raw };
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const botToken = 'xoxb-test-bot-token';
  const appToken = 'xapp-test-app-token';
  const messages: PostedMessage[] = [];
  const uploads: UploadedFile[] = [];
  const files = new Map<string, { name: string; bytes: Buffer }>();
  const pendingUploads = new Map<string, { filename: string; bytes: Buffer | null }>();
  const throttled = new Map<string, { count: number; retryAfter: number }>();
  const calls = new Map<string, number>();
  const acked = new Set<string>();
  /** Envelopes delivered and not yet acknowledged, in order. */
  const unacked = new Map<string, string>();
  const sockets = new Set<WebSocket>();
  let maxOpen = 0;
  let opened = 0;
  let clock = Math.floor(Date.now() / 1000);
  let counter = 0;
  const nextTs = () => `${clock}.${String(++counter).padStart(6, '0')}`;
  let base = '';

  const ok = (res: ServerResponse, result: Record<string, unknown> = {}): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, ...result }));
  const fail = (res: ServerResponse, error: string): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error }));
  const bearer = (req: IncomingMessage) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;

  function send(frame: string): void {
    for (const socket of sockets) {
      // One socket gets it, as Slack does with several connections of one app.
      if (socket.readyState === 1) return socket.send(frame);
    }
  }

  async function api(method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const throttle = throttled.get(method);
    if (throttle && throttle.count > 0) {
      throttle.count--;
      return void res.writeHead(429, { 'retry-after': String(throttle.retryAfter), 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'ratelimited' }));
    }
    const token = bearer(req);
    const { fields } = await bodyOf(req);
    if (method === 'apps.connections.open') {
      if (token !== appToken) return fail(res, 'invalid_auth');
      return ok(res, { url: `${base.replace(/^http/, 'ws')}/socket?ticket=${randomUUID()}` });
    }
    if (token !== botToken) return fail(res, 'invalid_auth');
    switch (method) {
      case 'auth.test':
        return ok(res, { url: 'https://warren-test.slack.com/', team: 'Warren', user: 'warren', team_id: 'T0001', user_id: BOT_USER, bot_id: 'B0001' });
      case 'chat.postMessage': {
        if (!fields.channel || typeof fields.text !== 'string') return fail(res, 'invalid_arguments');
        const posted: PostedMessage = { channel: String(fields.channel), ts: nextTs(), thread_ts: fields.thread_ts ? String(fields.thread_ts) : null, texts: [fields.text] };
        messages.push(posted);
        return ok(res, { channel: posted.channel, ts: posted.ts, message: { text: fields.text } });
      }
      case 'chat.update': {
        const posted = messages.find((m) => m.channel === String(fields.channel) && m.ts === String(fields.ts));
        if (!posted) return fail(res, 'message_not_found');
        posted.texts.push(String(fields.text));
        return ok(res, { channel: posted.channel, ts: posted.ts });
      }
      case 'files.getUploadURLExternal': {
        if (!fields.filename || !fields.length) return fail(res, 'invalid_arguments');
        const id = `F${randomUUID().slice(0, 8).toUpperCase()}`;
        pendingUploads.set(id, { filename: String(fields.filename), bytes: null });
        return ok(res, { upload_url: `${base}/upload/${id}`, file_id: id });
      }
      case 'files.completeUploadExternal': {
        const listed = JSON.parse(String(fields.files ?? '[]')) as { id: string; title?: string }[];
        for (const { id } of listed) {
          const pending = pendingUploads.get(id);
          if (!pending?.bytes) return fail(res, 'file_not_found');
          uploads.push({ channel: String(fields.channel_id), thread_ts: fields.thread_ts ? String(fields.thread_ts) : null, filename: pending.filename, bytes: pending.bytes });
          pendingUploads.delete(id);
        }
        return ok(res, { files: listed.map(({ id }) => ({ id })) });
      }
      default:
        return fail(res, 'unknown_method');
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/api/') && req.method === 'POST') return api(url.pathname.slice('/api/'.length), req, res);
    if (url.pathname.startsWith('/upload/') && req.method === 'POST') {
      const pending = pendingUploads.get(url.pathname.slice('/upload/'.length));
      if (!pending) return void res.writeHead(404).end();
      const { form, raw } = await bodyOf(req);
      const part = form ? [...form.values()].find((v): v is File => v instanceof Blob) : null;
      pending.bytes = part ? Buffer.from(await part.arrayBuffer()) : raw;
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${pending.bytes.length}`);
    }
    if (url.pathname.startsWith('/files/') && req.method === 'GET') {
      // Without the bot token Slack answers with its sign-in page.
      if (bearer(req) !== botToken) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
      const file = files.get(url.pathname.split('/')[2] ?? '');
      if (!file) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.length) }).end(file.bytes);
    }
    res.writeHead(404).end();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!(req.url ?? '').startsWith('/socket')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => wss.emit('connection', ws, req));
  });
  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    opened++;
    maxOpen = Math.max(maxOpen, [...sockets].filter((s) => s.readyState === 1).length);
    const pinger = setInterval(() => ws.ping(), 2_000);
    ws.on('close', () => {
      clearInterval(pinger);
      sockets.delete(ws);
    });
    ws.on('message', (data: Buffer) => {
      try {
        const { envelope_id: id } = JSON.parse(data.toString('utf8')) as { envelope_id?: string };
        if (id && unacked.has(id)) {
          unacked.delete(id);
          acked.add(id);
        }
      } catch {
        // Not JSON: nothing a Socket Mode client sends.
      }
    });
    ws.send(JSON.stringify({ type: 'hello', num_connections: sockets.size, debug_info: { host: 'fake-slack' }, connection_info: { app_id: 'A0001' } }));
    // What no client acknowledged is delivered again (as Slack's retries).
    for (const frame of unacked.values()) send(frame.replace('"retry_attempt":0', '"retry_attempt":1'));
  });
  const port = await listenLocal(server);
  base = `http://127.0.0.1:${port}`;

  const eventBody = (event: Record<string, unknown>) => ({
    token: 'verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`,
    event_time: clock,
    event,
  });
  const deliver = (body: Record<string, unknown>) => {
    const id = randomUUID();
    const frame = JSON.stringify({ envelope_id: id, payload: body, type: 'events_api', accepts_response_payload: false, retry_attempt: 0, retry_reason: '' });
    unacked.set(id, frame);
    send(frame);
  };

  return {
    apiUrl: `${base}/api/`,
    botToken,
    appToken,
    messages,
    uploads,
    acked,
    calls,
    get openSockets() {
      return [...sockets].filter((s) => s.readyState === 1).length;
    },
    get maxOpenSockets() {
      return maxOpen;
    },
    get socketsOpened() {
      return opened;
    },
    addFile(name, bytes) {
      const id = `F${randomUUID().slice(0, 8).toUpperCase()}`;
      files.set(id, { name, bytes });
      const url = `${base}/files/${id}/${encodeURIComponent(name)}`;
      return { id, name, size: bytes.length, mode: 'hosted', url_private: url, url_private_download: `${url}?download=1` };
    },
    eventBody,
    deliver,
    dm(user, text, shared) {
      clock++;
      const event: Record<string, unknown> = { type: 'message', channel: `D${user}`, channel_type: 'im', user, text, ts: nextTs(), event_ts: `${clock}.000000` };
      if (shared?.length) Object.assign(event, { subtype: 'file_share', files: shared });
      const body = eventBody(event);
      deliver(body);
      return body;
    },
    mention(channel, user, text, threadTs) {
      clock++;
      const event: Record<string, unknown> = { type: 'app_mention', channel, channel_type: 'channel', user, text: `<@${BOT_USER}> ${text}`, ts: nextTs() };
      if (threadTs) event.thread_ts = threadTs;
      const body = eventBody(event);
      deliver(body);
      return body;
    },
    dropSockets() {
      for (const socket of sockets) socket.terminate();
    },
    throttle(method, count, retryAfterSeconds) {
      throttled.set(method, { count, retryAfter: retryAfterSeconds });
    },
    in: (channel, threadTs) => messages.filter((m) => m.channel === channel && (threadTs === undefined || m.thread_ts === threadTs)),
    close: () => closeFake(server, sockets, wss),
  };
}
