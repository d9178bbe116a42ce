// A local server that speaks the Feishu open platform for one app, as Warren's Feishu channel
// uses it: tenant_access_token (tokens can be expired at will, refused afterwards with code
// 99991663); the long connection (POST /callback/ws/endpoint hands out a ws:// address; events go
// down as protobuf frames once the client has sent its first ping; the client acknowledges each
// by sending the frame back with a `{code}` payload; an event not acknowledged with 200 is sent
// again, on a later ping or on the next connection); message reply and PATCH (cards); message
// resources; and file upload (im/v1/files). Tests push user messages in and read what the bot
// sent; the server counts long connections open at once, so two holders would show. It also
// serves Lark's accounts and OAuth paths for the app (fake-lark-accounts.ts).
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeFake, listenLocal } from './fake-server.js';
import { fakeLarkAccounts, type FakeLarkAccounts } from './fake-lark-accounts.js';

export interface BotMessage {
  chat_id: string;
  message_id: string;
  msg_type: string;
  /** The user's message it replies to. */
  reply_to: string;
  /** Every text the message showed: a card's Markdown, a text's text, a file's name; first as sent, then each update. */
  texts: string[];
}

export interface SentFile {
  chat_id: string;
  filename: string;
  bytes: Buffer;
}

export interface FakeFeishu {
  readonly url: string;
  readonly appId: string;
  readonly appSecret: string;
  readonly messages: BotMessage[];
  readonly files: SentFile[];
  /** tenant_access_tokens handed out so far. */
  readonly tokensIssued: number;
  /** Calls refused for an expired token. */
  readonly tokenRefusals: number;
  readonly openConnections: number;
  /** The most long connections that were open at one time. */
  readonly maxOpenConnections: number;
  /** Events sent down and not yet acknowledged with 200. */
  readonly unacknowledged: number;
  /** Lark's accounts and OAuth servers for this app (the Lark integration's set-up and authorization flows). */
  readonly accounts: FakeLarkAccounts;
  /** A user's text message (in a topic when `threadId` is given); returns its message id. */
  sendText(chatId: string, text: string, options?: { from?: string; threadId?: string }): string;
  /** A user's file message, served by the message resources call. */
  sendFile(chatId: string, filename: string, bytes: Buffer, from?: string): string;
  /** A message of another kind (`sticker`, `audio`…). */
  sendOther(chatId: string, messageType: string, from?: string): string;
  /**
   * A user's text message as Feishu's HTTP callback sends it (schema 2.0, header.token set), not
   * pushed down the long connection: the test posts it. The message is known to the server (for replies).
   */
  callbackEvent(chatId: string, text: string, token: string, from?: string): { messageId: string; envelope: Record<string, unknown> };
  /** Closes every long connection, as the platform does when it restarts. */
  dropConnections(): void;
  /** Makes every token handed out so far expire: the next call with one is refused. */
  expireTokens(): void;
  /** Answers the next `count` calls whose path ends with `suffix` (and method) with 429 and code 99991400. */
  throttle(method: string, suffix: string, count: number): void;
  /** The messages the bot sent to a chat. */
  chat(chatId: string): BotMessage[];
  close(): Promise<void>;
}

// ── the long connection's frames (pbbp2.Frame), encoded by hand ─────────────────────────────
interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: { key: string; value: string }[];
  payload: Buffer;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}
const field = (no: number, wire: number) => varint((no << 3) | wire);
const bytesField = (no: number, value: Buffer) => Buffer.concat([field(no, 2), varint(value.length), value]);

function encodeFrame(frame: Frame): Buffer {
  return Buffer.concat([
    field(1, 0), varint(frame.SeqID),
    field(2, 0), varint(frame.LogID),
    field(3, 0), varint(frame.service),
    field(4, 0), varint(frame.method),
    ...frame.headers.map((h) => bytesField(5, Buffer.concat([bytesField(1, Buffer.from(h.key)), bytesField(2, Buffer.from(h.value))]))),
    bytesField(8, frame.payload),
  ]);
}

function decodeFields(buf: Buffer): { no: number; value: number | Buffer }[] {
  const fields: { no: number; value: number | Buffer }[] = [];
  let at = 0;
  const readVarint = () => {
    let result = 0;
    let shift = 1;
    for (;;) {
      const byte = buf[at++] as number;
      result += (byte & 0x7f) * shift;
      if (byte < 0x80) return result;
      shift *= 128;
    }
  };
  while (at < buf.length) {
    const key = readVarint();
    const no = key >> 3;
    if ((key & 7) === 0) fields.push({ no, value: readVarint() });
    else {
      const length = readVarint();
      fields.push({ no, value: buf.subarray(at, at + length) });
      at += length;
    }
  }
  return fields;
}

function decodeFrame(buf: Buffer): { method: number; headers: Record<string, string>; payload: Buffer } {
  const headers: Record<string, string> = {};
  let method = 0;
  let payload: Buffer = Buffer.alloc(0);
  for (const f of decodeFields(buf)) {
    if (f.no === 4) method = f.value as number;
    if (f.no === 8) payload = f.value as Buffer;
    if (f.no === 5) {
      const [k, v] = decodeFields(f.value as Buffer);
      headers[String(k?.value)] = String(v?.value ?? '');
    }
  }
  return { method, headers, payload };
}

/** Feishu's encryption of an event: AES-256-CBC, key sha256(encrypt_key), a random IV before the ciphertext, base64. */
export function encryptFeishu(plain: string, encryptKey: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', createHash('sha256').update(encryptKey).digest(), iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/** The X-Lark-Signature of a callback body. */
export const signFeishu = (timestamp: string, nonce: string, encryptKey: string, body: string) =>
  createHash('sha256').update(timestamp + nonce + encryptKey + body).digest('hex');

interface Socket {
  send(data: Buffer): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'close', listener: () => void): void;
  terminate(): void;
}
interface WsServer {
  handleUpgrade(req: IncomingMessage, socket: unknown, head: Buffer, done: (ws: Socket) => void): void;
  close(): void;
}

/** A multipart body's parts by name (a file part need not name a file, as the SDK sends it). */
function multipart(raw: Buffer, boundary: string): Map<string, Buffer> {
  const parts = new Map<string, Buffer>();
  const delimiter = Buffer.from(`--${boundary}`);
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const next = raw.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    const part = raw.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const name = /name="([^"]*)"/.exec(part.subarray(0, split).toString('utf8'))?.[1];
    if (name !== undefined && split !== -1) parts.set(name, Buffer.from(part.subarray(split + 4)));
    at = next;
  }
  return parts;
}

async function bodyOf(req: IncomingMessage): Promise<{ json: Record<string, unknown>; form: Map<string, Buffer> | null }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  const boundary = /boundary=(.+)$/.exec(type)?.[1];
  if (type.startsWith('multipart/form-data') && boundary) return { json: {}, form: multipart(raw, boundary) };
  if (type.startsWith('application/x-www-form-urlencoded')) return { json: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), form: null };
  return { json: raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {}, form: null };
}

/** What a bot message shows: a card's Markdown, a text's text, a file's key. */
function shown(msgType: string, content: string): string {
  const parsed = JSON.parse(content) as { elements?: { content?: string }[]; text?: string; file_key?: string };
  if (msgType === 'interactive') return parsed.elements?.map((e) => e.content ?? '').join('\n') ?? '';
  if (msgType === 'text') return parsed.text ?? '';
  return parsed.file_key ?? '';
}

export async function startFakeFeishu(appId = 'cli_0123456789abcdef', appSecret = 'test-app-secret'): Promise<FakeFeishu> {
  const { WebSocketServer } = (await import('ws' as string)) as { WebSocketServer: new (options: { noServer: true }) => WsServer };
  const wss = new WebSocketServer({ noServer: true });
  const userMessages = new Map<string, { chat_id: string; resources: Map<string, Buffer> }>();
  const messages: BotMessage[] = [];
  const files: SentFile[] = [];
  const uploaded = new Map<string, { filename: string; bytes: Buffer }>();
  const validTokens = new Set<string>();
  const throttled = new Map<string, number>();
  const sockets = new Set<Socket>();
  const ready = new Set<Socket>();
  /** Events not yet acknowledged, by frame message id. */
  const pending = new Map<string, Buffer>();
  let tokensIssued = 0;
  let tokenRefusals = 0;
  let maxOpen = 0;
  let nextId = 1;

  const lark = fakeLarkAccounts(appId, appSecret);
  const ok = (res: ServerResponse, body: Record<string, unknown>) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 0, msg: 'success', ...body }));
  const fail = (res: ServerResponse, status: number, code: number, msg: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ code, msg }));

  /** When each unacknowledged event was last sent down. */
  const sentAt = new Map<string, number>();

  /**
   * Sends an event down a connection that has spoken (its first ping: before it, the client may
   * not be listening yet), the first one as Feishu picks one; or keeps it for the next.
   */
  function deliver(frameId: string): void {
    const socket = [...sockets].find((s) => ready.has(s));
    const frame = pending.get(frameId);
    if (!socket || !frame) return;
    sentAt.set(frameId, Date.now());
    socket.send(frame);
  }

  const envelopeOf = (message: Record<string, unknown>, from: string, token = '') => ({
    schema: '2.0',
    header: { event_id: randomUUID(), event_type: 'im.message.receive_v1', create_time: String(Date.now()), token, app_id: appId, tenant_key: 'tenant' },
    event: { sender: { sender_id: { open_id: from }, sender_type: 'user', tenant_key: 'tenant' }, message },
  });

  function pushEvent(message: Record<string, unknown>, from: string): void {
    const envelope = envelopeOf(message, from);
    const frameId = randomUUID();
    pending.set(
      frameId,
      encodeFrame({
        SeqID: 0,
        LogID: 0,
        service: 7,
        method: 1,
        headers: [
          { key: 'type', value: 'event' },
          { key: 'message_id', value: frameId },
          { key: 'sum', value: '1' },
          { key: 'seq', value: '0' },
          { key: 'trace_id', value: randomUUID() },
        ],
        payload: Buffer.from(JSON.stringify(envelope)),
      }),
    );
    deliver(frameId);
  }

  function knownMessage(chatId: string, messageType: string, content: unknown, threadId?: string, resources = new Map<string, Buffer>()) {
    const messageId = `om_user_${nextId++}`;
    userMessages.set(messageId, { chat_id: chatId, resources });
    return { message_id: messageId, chat_id: chatId, chat_type: 'p2p', message_type: messageType, content: JSON.stringify(content), create_time: String(Date.now()), ...(threadId ? { thread_id: threadId } : {}) };
  }

  function userMessage(chatId: string, messageType: string, content: unknown, from: string, threadId?: string, resources = new Map<string, Buffer>()): string {
    const message = knownMessage(chatId, messageType, content, threadId, resources);
    pushEvent(message, from);
    return message.message_id;
  }

  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token && validTokens.has(token)) return true;
    tokenRefusals++;
    fail(res, 400, 99991663, 'Invalid access token for authorization. Please make a request with token attached.');
    return false;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { json, form } = await bodyOf(req);
    for (const [key, count] of throttled) {
      if (count > 0 && key === `${req.method} ${url.pathname.replace(/^.*\//, '')}`) {
        throttled.set(key, count - 1);
        return fail(res, 429, 99991400, 'request trigger frequency limit');
      }
    }
    if (req.method === 'POST' && url.pathname === '/open-apis/auth/v3/tenant_access_token/internal') {
      if (json.app_id !== appId || json.app_secret !== appSecret) return fail(res, 400, 10014, 'app secret invalid');
      const token = `t-${randomUUID()}`;
      validTokens.add(token);
      tokensIssued++;
      return ok(res, { tenant_access_token: token, expire: 7200 });
    }
    if (req.method === 'POST' && url.pathname === '/callback/ws/endpoint') {
      if (json.AppID !== appId || json.AppSecret !== appSecret) return ok(res, { code: 403, msg: 'forbidden', data: {} });
      const { port } = server.address() as AddressInfo;
      return ok(res, {
        data: {
          URL: `ws://127.0.0.1:${port}/ws?device_id=fake-device&service_id=7`,
          ClientConfig: { PingInterval: 1, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 },
        },
      });
    }
    if (lark.handle(req.method ?? 'GET', url.pathname, json, req.headers.authorization, res)) return;
    if (!url.pathname.startsWith('/open-apis/im/v1/')) return fail(res, 404, 404, 'not found');
    if (!authorized(req, res)) return;
    const path = url.pathname.slice('/open-apis/im/v1/'.length).split('/');
    if (req.method === 'POST' && path[0] === 'messages' && path[2] === 'reply') {
      const replied = userMessages.get(path[1] as string) ?? messages.find((m) => m.message_id === path[1]);
      if (!replied) return fail(res, 400, 230011, 'The message was withdrawn or not found.');
      const msgType = String(json.msg_type);
      const content = String(json.content);
      if (msgType === 'file' && !uploaded.has((JSON.parse(content) as { file_key: string }).file_key)) return fail(res, 400, 230001, 'invalid file_key');
      const sent: BotMessage = { chat_id: replied.chat_id, message_id: `om_bot_${nextId++}`, msg_type: msgType, reply_to: path[1] as string, texts: [shown(msgType, content)] };
      messages.push(sent);
      if (msgType === 'file') {
        const file = uploaded.get(sent.texts[0] as string);
        if (file) files.push({ chat_id: sent.chat_id, ...file });
      }
      return ok(res, { data: { message_id: sent.message_id, chat_id: sent.chat_id, msg_type: msgType } });
    }
    if (req.method === 'PATCH' && path[0] === 'messages' && path.length === 2) {
      const sent = messages.find((m) => m.message_id === path[1]);
      if (!sent) return fail(res, 400, 230011, 'The message was withdrawn or not found.');
      if (sent.msg_type !== 'interactive') return fail(res, 400, 230001, 'only cards can be updated');
      sent.texts.push(shown('interactive', String(json.content)));
      return ok(res, { data: {} });
    }
    if (req.method === 'GET' && path[0] === 'messages' && path[2] === 'resources') {
      const bytes = userMessages.get(path[1] as string)?.resources.get(path[3] as string);
      if (!bytes) return fail(res, 400, 234003, 'resource not found');
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    }
    if (req.method === 'POST' && path[0] === 'files' && path.length === 1) {
      const file = form?.get('file');
      const filename = form?.get('file_name')?.toString('utf8');
      if (!file || file.length === 0 || !filename || !form?.get('file_type')) return fail(res, 400, 234001, 'invalid file');
      const key = `file_v3_${nextId++}`;
      uploaded.set(key, { filename, bytes: file });
      return ok(res, { data: { file_key: key } });
    }
    return fail(res, 404, 404, 'not found');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => fail(res, 500, 500, String(err)));
  });
  server.on('upgrade', (req: IncomingMessage, socket: { destroy(): void }, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/ws' || url.searchParams.get('device_id') !== 'fake-device') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      maxOpen = Math.max(maxOpen, sockets.size);
      ws.on('message', (data) => {
        const frame = decodeFrame(data);
        if (frame.method === 0 && frame.headers.type === 'ping') {
          ready.add(ws);
          // Like the platform, an event not acknowledged in a while is sent again.
          for (const id of pending.keys()) if (Date.now() - (sentAt.get(id) ?? 0) > 2_000) deliver(id);
          return;
        }
        if (frame.method !== 1) return;
        const answer = JSON.parse(frame.payload.toString('utf8') || '{}') as { code?: number };
        const id = frame.headers.message_id;
        if (id && answer.code === 200) {
          pending.delete(id);
          sentAt.delete(id);
        }
      });
      ws.on('close', () => {
        sockets.delete(ws);
        ready.delete(ws);
        // What it did not acknowledge goes to the next connection.
        for (const id of pending.keys()) deliver(id);
      });
    });
  });
  const port = await listenLocal(server);

  return {
    url: `http://127.0.0.1:${port}`,
    appId,
    appSecret,
    messages,
    files,
    accounts: lark,
    get tokensIssued() {
      return tokensIssued;
    },
    get tokenRefusals() {
      return tokenRefusals;
    },
    get openConnections() {
      return sockets.size;
    },
    get maxOpenConnections() {
      return maxOpen;
    },
    get unacknowledged() {
      return pending.size;
    },
    sendText: (chatId, text, options = {}) => userMessage(chatId, 'text', { text }, options.from ?? `ou_${chatId}`, options.threadId),
    sendFile(chatId, filename, bytes, from = `ou_${chatId}`) {
      const key = `file_user_${nextId++}`;
      return userMessage(chatId, 'file', { file_key: key, file_name: filename }, from, undefined, new Map([[key, bytes]]));
    },
    sendOther: (chatId, messageType, from = `ou_${chatId}`) => userMessage(chatId, messageType, {}, from),
    callbackEvent(chatId, text, token, from = `ou_${chatId}`) {
      const message = knownMessage(chatId, 'text', { text });
      return { messageId: message.message_id, envelope: envelopeOf(message, from, token) };
    },
    dropConnections() {
      for (const socket of sockets) socket.terminate();
    },
    expireTokens: () => validTokens.clear(),
    throttle(method, suffix, count) {
      throttled.set(`${method} ${suffix}`, count);
    },
    chat: (chatId) => messages.filter((m) => m.chat_id === chatId),
    close: () => closeFake(server, sockets, wss),
  };
}
