// The Telegram Bot API over HTTP (https://core.telegram.org/bots/api), the few methods a chat
// channel needs: long polling, sending and editing text, sending a document, and downloading a
// file. Every method is `POST <base>/bot<token>/<method>`; the answer is `{ok, result}` or
// `{ok: false, error_code, description, parameters: {retry_after}}`. The token sits in every
// URL: errors name the method, never the URL.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { FileTooLargeError } from './chat-messages.js';

const UserSchema = Type.Object({ id: Type.Integer(), username: Type.Optional(Type.String()) });
const ChatSchema = Type.Object({ id: Type.Integer(), type: Type.String() });
const DocumentSchema = Type.Object({
  file_id: Type.String(),
  file_unique_id: Type.String(),
  file_name: Type.Optional(Type.String()),
  file_size: Type.Optional(Type.Integer()),
});
const PhotoSizeSchema = Type.Object({ file_id: Type.String(), file_unique_id: Type.String(), file_size: Type.Optional(Type.Integer()) });

export const TelegramMessageSchema = Type.Object({
  message_id: Type.Integer(),
  from: Type.Optional(UserSchema),
  chat: ChatSchema,
  text: Type.Optional(Type.String()),
  caption: Type.Optional(Type.String()),
  document: Type.Optional(DocumentSchema),
  /** The same photo in several sizes, smallest first. */
  photo: Type.Optional(Type.Array(PhotoSizeSchema)),
});
export type TelegramMessage = Static<typeof TelegramMessageSchema>;

export const TelegramUpdateSchema = Type.Object({ update_id: Type.Integer(), message: Type.Optional(TelegramMessageSchema) });
export type TelegramUpdate = Static<typeof TelegramUpdateSchema>;

const FileSchema = Type.Object({ file_id: Type.String(), file_size: Type.Optional(Type.Integer()), file_path: Type.Optional(Type.String()) });

/** A refusal from the Bot API, or a failure to reach it (`code` 0). */
export class TelegramError extends Error {
  constructor(
    readonly method: string,
    /** The HTTP status (Telegram's `error_code`); 0 when no answer came. */
    readonly code: number,
    description: string,
    /** Seconds to wait before trying again (a 429's `parameters.retry_after`). */
    readonly retryAfter: number | null = null,
  ) {
    super(`Telegram ${method}: ${code === 0 ? '' : `${code} `}${description}`);
    this.name = 'TelegramError';
  }

  /** Worth trying again: no answer, a 5xx, a 429, or 409 (another poller's call still open). */
  get transient(): boolean {
    return this.code === 0 || this.code >= 500 || this.code === 429 || this.code === 409;
  }
}

interface TelegramReply {
  ok: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

export interface TelegramApi {
  getUpdates(offset: number, timeoutSeconds: number, signal: AbortSignal): Promise<TelegramUpdate[]>;
  sendMessage(chatId: string, text: string, replyTo: string | null): Promise<number>;
  editMessageText(chatId: string, messageId: number, text: string): Promise<void>;
  sendDocument(chatId: string, filename: string, bytes: Uint8Array, replyTo: string | null): Promise<void>;
  /** A file's bytes (getFile, then the file URL), refused (FileTooLargeError) above `maxBytes`. */
  download(fileId: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array>;
}

/** Time a call may take on top of its own long-poll wait. */
const CALL_TIMEOUT_MS = 30_000;

export function createTelegramApi(baseUrl: string, token: string): TelegramApi {
  const base = baseUrl.replace(/\/+$/, '');
  const reply = (to: string | null) => (to === null ? {} : { reply_parameters: { message_id: Number(to), allow_sending_without_reply: true } });

  async function call(method: string, body: unknown, options: { signal?: AbortSignal; waitMs?: number } = {}): Promise<unknown> {
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS + (options.waitMs ?? 0));
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const init: RequestInit =
      body instanceof FormData ? { method: 'POST', body, signal } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal };
    let res: Response;
    try {
      res = await fetch(`${base}/bot${token}/${method}`, init);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new TelegramError(method, 0, err instanceof Error ? err.message : String(err));
    }
    const parsed = (await res.json().catch(() => null)) as TelegramReply | null; // not JSON: the HTTP status below says what failed
    if (!parsed || !parsed.ok) {
      throw new TelegramError(method, parsed?.error_code ?? res.status, parsed?.description ?? `HTTP ${res.status}`, parsed?.parameters?.retry_after ?? null);
    }
    return parsed.result;
  }

  return {
    async getUpdates(offset, timeoutSeconds, signal) {
      const result = await call('getUpdates', { offset, timeout: timeoutSeconds, allowed_updates: ['message'] }, { signal, waitMs: timeoutSeconds * 1000 });
      // An update of a kind this client does not read is still an update: it keeps its id, so the offset moves past it.
      return Array.isArray(result) ? result.map((u) => (Value.Check(TelegramUpdateSchema, u) ? u : { update_id: Number((u as { update_id?: unknown }).update_id) })) : [];
    },

    async sendMessage(chatId, text, replyTo) {
      const sent = (await call('sendMessage', { chat_id: chatId, text, ...reply(replyTo) })) as { message_id?: unknown };
      return Number(sent.message_id);
    },

    async editMessageText(chatId, messageId, text) {
      await call('editMessageText', { chat_id: chatId, message_id: messageId, text });
    },

    async sendDocument(chatId, filename, bytes, replyTo) {
      const form = new FormData();
      form.set('chat_id', chatId);
      if (replyTo !== null) form.set('reply_parameters', JSON.stringify(reply(replyTo).reply_parameters));
      form.set('document', new Blob([bytes]), filename);
      await call('sendDocument', form);
    },

    async download(fileId, maxBytes, signal) {
      const file = await call('getFile', { file_id: fileId }, { signal });
      if (!Value.Check(FileSchema, file) || !file.file_path) throw new TelegramError('getFile', 400, 'the file has no path to download it from');
      const res = await fetch(`${base}/file/bot${token}/${file.file_path}`, { signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS * 4)]) }).catch((err: unknown) => {
        throw new TelegramError('file download', 0, err instanceof Error ? err.message : String(err));
      });
      if (!res.ok) throw new TelegramError('file download', res.status, `HTTP ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.byteLength > maxBytes) throw new FileTooLargeError(maxBytes);
      return bytes;
    },
  };
}
