// The Feishu / Lark open platform, the few calls a chat channel needs, made with the official
// SDK (@larksuiteoapi/node-sdk): replying to a message with an interactive card, text or a
// file, updating a card (PATCH /open-apis/im/v1/messages/:message_id), uploading a file
// (im/v1/files) and downloading a message's resource. The SDK gets the tenant_access_token and
// keeps it in the cache given here until shortly before it expires; a call refused for a token
// that the platform no longer takes empties that cache, so the next try fetches a new one.
import * as lark from '@larksuiteoapi/node-sdk';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { FileTooLargeError } from './chat-messages.js';
import { createRetry } from './retry.js';

/** A refusal from the open platform, or a failure to reach it (`status` 0). */
export class FeishuError extends Error {
  constructor(
    readonly call: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The platform's error code (`code` of the answer), 0 when it gave none. */
    readonly code: number,
    description: string,
  ) {
    super(`Feishu ${call}: ${status === 0 ? '' : `${status} `}${code === 0 ? '' : `code ${code}: `}${description}`);
    this.name = 'FeishuError';
  }

  /** Worth trying again: no answer, a 5xx, a rate limit, or a token that needed renewing. */
  get transient(): boolean {
    return this.status === 0 || this.status >= 500 || this.status === 429 || RATE_LIMITED.has(this.code) || TOKEN_REFUSED.has(this.code);
  }
}

/** Calls that must get through: an outage (no answer, 5xx, a rate limit, a token to renew) is waited out with backoff. */
export const feishuRetry = createRetry({
  name: 'feishu',
  isPlatformError: (err) => err instanceof FeishuError,
  transient: (err) => err instanceof FeishuError && err.transient,
  // Feishu names no wait: the doubling backoff applies.
  retryAfterMs: () => null,
});

/** "Request trigger frequency limit" and the message API's own rate limit. */
const RATE_LIMITED = new Set([99991400, 230020]);
/** The tenant_access_token is missing, invalid or expired. */
export const TOKEN_REFUSED = new Set([99991661, 99991663, 99991664, 99991665, 99991668]);

export type ResourceType = 'file' | 'image';

export interface FeishuApi {
  /** Replies to a message with a card showing `markdown`; the card's message id. */
  replyCard(messageId: string, markdown: string): Promise<string>;
  /** Shows `markdown` in a card sent before. */
  updateCard(cardMessageId: string, markdown: string): Promise<void>;
  replyText(messageId: string, text: string): Promise<void>;
  /** Uploads a file (im/v1/files) and replies with it. */
  replyFile(messageId: string, filename: string, bytes: Uint8Array): Promise<void>;
  /** A message's file or image, refused (FileTooLargeError) above `maxBytes`. */
  download(messageId: string, key: string, type: ResourceType, maxBytes: number): Promise<Uint8Array>;
}

export interface FeishuApiOptions {
  baseUrl: string;
  appId: string;
  appSecret: string;
  log: Logger;
}

/**
 * The SDK's log lines, into Warren's log: its long connection's troubles as warnings; the rest
 * (a refused call, which Warren logs itself with what it does about it; chatter) at debug.
 */
export function sdkLogger(log: Logger): lark.Logger {
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  const problem = (...msg: unknown[]) => (msg[0] === '[ws]' ? log.warn({ sdk: 'lark' }, text(msg)) : log.debug({ sdk: 'lark' }, text(msg)));
  const debug = (...msg: unknown[]) => log.debug({ sdk: 'lark' }, text(msg));
  return { error: problem, warn: problem, info: debug, debug, trace: () => undefined };
}

/** A token cache the SDK fills; `clear` drops what it holds. */
function createTokenCache() {
  const values = new Map<string, { value: unknown; expiresAt: number }>();
  const name = (key: string | Symbol, namespace?: string) => `${namespace ?? ''}:${String(key)}`;
  return {
    cache: {
      async set(key: string | Symbol, value: unknown, expire?: number, options?: { namespace?: string }) {
        values.set(name(key, options?.namespace), { value, expiresAt: expire ?? Infinity });
        return true as boolean;
      },
      async get(key: string | Symbol, options?: { namespace?: string }) {
        const entry = values.get(name(key, options?.namespace));
        return entry && entry.expiresAt > Date.now() ? entry.value : undefined;
      },
    } satisfies lark.Cache,
    clear: () => values.clear(),
  };
}

interface Answer {
  code?: number;
  msg?: string;
  data?: Record<string, unknown>;
}

const CARD_CONFIG = { wide_screen_mode: true, update_multi: true };
/** An interactive card (message card JSON 1.0) showing one Markdown block. */
export const cardContent = (markdown: string) => JSON.stringify({ config: CARD_CONFIG, elements: [{ tag: 'markdown', content: markdown }] });

/** Feishu's `file_type` for an upload, by the file's extension. */
function fileType(filename: string): string {
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  if (['doc', 'docx'].includes(ext)) return 'doc';
  if (['xls', 'xlsx'].includes(ext)) return 'xls';
  if (['ppt', 'pptx'].includes(ext)) return 'ppt';
  if (['pdf', 'mp4', 'opus'].includes(ext)) return ext;
  return 'stream';
}

async function readLimited(stream: Readable, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBytes) {
      stream.destroy();
      throw new FileTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

export function createFeishuApi(options: FeishuApiOptions): FeishuApi {
  const tokens = createTokenCache();
  const client = new lark.Client({
    appId: options.appId,
    appSecret: options.appSecret,
    domain: options.baseUrl.replace(/\/+$/, ''),
    cache: tokens.cache,
    logger: sdkLogger(options.log),
    loggerLevel: lark.LoggerLevel.warn,
  });

  /** Runs one SDK call; its refusal (HTTP or `code`) as a FeishuError. */
  async function call<T extends Answer | null>(name: string, request: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await request();
    } catch (err) {
      const response = (err as { response?: { status?: number; data?: Answer } }).response;
      const failure = response
        ? new FeishuError(name, response.status ?? 0, Number(response.data?.code ?? 0), response.data?.msg ?? `HTTP ${response.status}`)
        : new FeishuError(name, 0, 0, err instanceof Error ? err.message : String(err));
      if (TOKEN_REFUSED.has(failure.code)) tokens.clear();
      throw failure;
    }
    if (answer && typeof answer.code === 'number' && answer.code !== 0) {
      if (TOKEN_REFUSED.has(answer.code)) tokens.clear();
      throw new FeishuError(name, 200, answer.code, answer.msg ?? 'refused');
    }
    return answer;
  }

  async function reply(messageId: string, msgType: string, content: string): Promise<string> {
    const answer = await call('reply', () => client.im.message.reply({ path: { message_id: messageId }, data: { msg_type: msgType, content } }) as Promise<Answer>);
    return String(answer.data?.message_id ?? '');
  }

  return {
    replyCard: (messageId, markdown) => reply(messageId, 'interactive', cardContent(markdown)),

    async updateCard(cardMessageId, markdown) {
      await call('update card', () => client.im.message.patch({ path: { message_id: cardMessageId }, data: { content: cardContent(markdown) } }) as Promise<Answer>);
    },

    async replyText(messageId, text) {
      await reply(messageId, 'text', JSON.stringify({ text }));
    },

    async replyFile(messageId, filename, bytes) {
      const uploaded = await call('file upload', async () => {
        const data = await client.im.file.create({ data: { file_type: fileType(filename) as 'stream', file_name: filename, file: Buffer.from(bytes) } });
        return { data: data ?? {} } as Answer;
      });
      const fileKey = uploaded.data?.file_key;
      if (typeof fileKey !== 'string' || fileKey === '') throw new FeishuError('file upload', 200, 0, 'no file_key in the answer');
      await reply(messageId, 'file', JSON.stringify({ file_key: fileKey }));
    },

    async download(messageId, key, type, maxBytes) {
      let stream: Readable | null = null;
      await call('message resource download', async () => {
        const resource = await client.im.messageResource.get({ path: { message_id: messageId, file_key: key }, params: { type } });
        stream = resource.getReadableStream();
        return null;
      });
      return readLimited(stream as unknown as Readable, maxBytes);
    },
  };
}
