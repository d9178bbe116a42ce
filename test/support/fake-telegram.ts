// A local HTTP server that speaks the Telegram Bot API for one bot, as Warren's Telegram channel
// uses it: getUpdates (long polling with offset and timeout; an update is confirmed once a poll
// asks past it), sendMessage, editMessageText, sendDocument (multipart), getFile and file
// downloads under /file/bot<token>/<path>. Tests push user messages in and read what the bot
// sent; the server counts polls open at once, so two pollers would show.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeFake, listenLocal } from './fake-server.js';

export interface SentMessage {
  chat_id: string;
  message_id: number;
  /** Every text the message showed, first the sent one, then each edit. */
  texts: string[];
  reply_to: number | null;
}

export interface SentDocument {
  chat_id: string;
  filename: string;
  bytes: Buffer;
}

export interface FakeTelegram {
  readonly url: string;
  readonly token: string;
  readonly messages: SentMessage[];
  readonly documents: SentDocument[];
  /** Every getUpdates call, with the offset it asked for. */
  readonly polls: { offset: number }[];
  /** The most long polls that were open at one time. */
  readonly maxOpenPolls: number;
  readonly openPolls: number;
  /** A user's message; returns its message id. */
  sendText(chatId: number, text: string, from?: number): number;
  /** A user's document, served by getFile and the file URL. */
  sendDocument(chatId: number, filename: string, bytes: Buffer, caption?: string, from?: number): number;
  /** Answers the next `count` calls of a method with 429 and `retry_after`. */
  throttle(method: string, count: number, retryAfterSeconds: number): void;
  /** The messages the bot sent to a chat. */
  chat(chatId: number): SentMessage[];
  close(): Promise<void>;
}

interface Update {
  update_id: number;
  message: Record<string, unknown>;
}

async function bodyOf(req: IncomingMessage): Promise<{ json: Record<string, unknown>; form: FormData | null }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    return { json: {}, form };
  }
  return { json: raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {}, form: null };
}

export async function startFakeTelegram(token = '123456:TEST-TOKEN'): Promise<FakeTelegram> {
  const updates: Update[] = [];
  const files = new Map<string, Buffer>();
  const messages: SentMessage[] = [];
  const documents: SentDocument[] = [];
  const polls: { offset: number }[] = [];
  const throttled = new Map<string, { count: number; retryAfter: number }>();
  const waiters = new Set<() => void>();
  let nextUpdate = 1;
  let nextMessage = 1000;
  let open = 0;
  let maxOpen = 0;
  let confirmed = 0;

  const push = (message: Record<string, unknown>) => {
    updates.push({ update_id: nextUpdate++, message });
    for (const wake of waiters) wake();
    return message.message_id as number;
  };

  const ok = (res: ServerResponse, result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
  const fail = (res: ServerResponse, code: number, description: string, parameters?: unknown) =>
    res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }));

  async function getUpdates(req: IncomingMessage, res: ServerResponse, json: Record<string, unknown>) {
    const offset = Number(json.offset ?? 0);
    polls.push({ offset });
    // Asking past an update confirms it: it is never handed out again.
    confirmed = Math.max(confirmed, offset);
    const pending = () => updates.filter((u) => u.update_id >= Math.max(offset, confirmed));
    open++;
    maxOpen = Math.max(maxOpen, open);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      open--;
      waiters.delete(wake);
      clearTimeout(timer);
    };
    const wake = () => {
      if (done || pending().length === 0) return;
      finish();
      ok(res, pending());
    };
    const timer = setTimeout(() => {
      if (done) return;
      finish();
      ok(res, pending());
    }, Number(json.timeout ?? 0) * 1000);
    // A poller killed mid-poll closes its socket: it no longer polls.
    res.once('close', finish);
    waiters.add(wake);
    wake();
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const filePrefix = `/file/bot${token}/`;
    if (req.method === 'GET' && url.pathname.startsWith(filePrefix)) {
      const bytes = files.get(url.pathname.slice(filePrefix.length));
      if (!bytes) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    }
    const prefix = `/bot${token}/`;
    if (!url.pathname.startsWith(prefix)) return fail(res, 401, 'Unauthorized');
    const method = url.pathname.slice(prefix.length);
    const { json, form } = await bodyOf(req);
    const throttle = throttled.get(method);
    if (throttle && throttle.count > 0) {
      throttle.count--;
      return fail(res, 429, `Too Many Requests: retry after ${throttle.retryAfter}`, { retry_after: throttle.retryAfter });
    }
    switch (method) {
      case 'getUpdates':
        return getUpdates(req, res, json);
      case 'sendMessage': {
        const replyTo = (json.reply_parameters as { message_id?: number } | undefined)?.message_id ?? null;
        const sent: SentMessage = { chat_id: String(json.chat_id), message_id: nextMessage++, texts: [String(json.text)], reply_to: replyTo };
        messages.push(sent);
        return ok(res, { message_id: sent.message_id, chat: { id: Number(json.chat_id), type: 'private' }, text: json.text });
      }
      case 'editMessageText': {
        const sent = messages.find((m) => m.message_id === Number(json.message_id) && m.chat_id === String(json.chat_id));
        if (!sent) return fail(res, 400, 'Bad Request: message to edit not found');
        if (sent.texts.at(-1) === json.text) return fail(res, 400, 'Bad Request: message is not modified');
        sent.texts.push(String(json.text));
        return ok(res, { message_id: sent.message_id });
      }
      case 'sendDocument': {
        const document = form?.get('document');
        if (!form || !(document instanceof Blob)) return fail(res, 400, 'Bad Request: no document');
        documents.push({ chat_id: String(form.get('chat_id')), filename: (document as File).name, bytes: Buffer.from(await document.arrayBuffer()) });
        return ok(res, { message_id: nextMessage++ });
      }
      case 'getFile': {
        const id = String(json.file_id);
        if (!files.has(`documents/${id}`)) return fail(res, 400, 'Bad Request: invalid file_id');
        return ok(res, { file_id: id, file_size: files.get(`documents/${id}`)?.length, file_path: `documents/${id}` });
      }
      default:
        return fail(res, 404, 'Not Found: method not found');
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => fail(res, 500, String(err)));
  });
  const port = await listenLocal(server);
  let messageIds = 1;

  const user = (from: number) => ({ id: from, is_bot: false, first_name: 'Tester' });
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    messages,
    documents,
    polls,
    get maxOpenPolls() {
      return maxOpen;
    },
    get openPolls() {
      return open;
    },
    sendText: (chatId, text, from = chatId) =>
      push({ message_id: messageIds++, from: user(from), chat: { id: chatId, type: 'private' }, date: Math.floor(Date.now() / 1000), text }),
    sendDocument(chatId, filename, bytes, caption, from = chatId) {
      const fileId = `file-${nextUpdate}-${filename.replace(/[^A-Za-z0-9]/g, '')}`;
      files.set(`documents/${fileId}`, bytes);
      return push({
        message_id: messageIds++,
        from: user(from),
        chat: { id: chatId, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        document: { file_id: fileId, file_unique_id: fileId, file_name: filename, file_size: bytes.length },
        ...(caption ? { caption } : {}),
      });
    },
    throttle(method, count, retryAfterSeconds) {
      throttled.set(method, { count, retryAfter: retryAfterSeconds });
    },
    chat: (chatId) => messages.filter((m) => m.chat_id === String(chatId)),
    close: () => closeFake(server),
  };
}
