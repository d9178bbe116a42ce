// Feishu's connection, run by the worker that holds its lease: the open platform's long
// connection (the SDK's WSClient, which asks /callback/ws/endpoint for its address and speaks
// protobuf frames), on which message events arrive. Each event is recorded in Feishu's inbox in
// Redis (once per event_id: the platform may deliver one twice) and only then acknowledged; the
// HTTP callback (POST /api/channels/feishu/events, on any API replica) records into the same
// inbox. This worker works through the inbox (workers/channels/inbox.ts), so an acknowledged
// event is never lost. Calls that fail for Feishu's sake are retried with backoff.
import * as lark from '@larksuiteoapi/node-sdk';
import { setTimeout as delay } from 'node:timers/promises';
import type { FeishuChannelConfig } from '../../src/config/app-config.schemas.js';
import type { ChannelStore } from '../../src/channels/channels.js';
import { fileNameProblem } from '../../src/workspace/thread-files.js';
import { ChannelEventNotTakenError } from './channels.errors.js';
import { commandOf, createChatMessages, type ConnectionParts, type IncomingAttachment, type IncomingMessage } from './chat-messages.js';
import { feishuRetry, sdkLogger, type FeishuApi, type ResourceType } from './feishu-api.js';
import { holdInbox, type InboxHolderDeps } from './inbox.js';

/** The open platform serves a message's resources up to 100 MB. */
export const FEISHU_DOWNLOAD_LIMIT = 100 * 1024 * 1024;
/** How long one read of the event queue waits for an event. */
const QUEUE_WAIT_MS = 2_000;

/** The part of `im.message.receive_v1` read here. */
export interface FeishuMessageEvent {
  event_id?: string;
  sender?: { sender_id?: { open_id?: string }; sender_type?: string };
  message?: {
    message_id: string;
    chat_id: string;
    /** Set for a message in a topic (a thread of a chat). */
    thread_id?: string;
    message_type: string;
    /** JSON, by message_type. */
    content: string;
    mentions?: { key: string }[];
  };
}

export interface FeishuConnectionDeps extends ConnectionParts {
  config: FeishuChannelConfig;
  credentials: { appId: string; appSecret: string; verificationToken?: string; encryptKey?: string };
  api: FeishuApi;
  store: InboxHolderDeps['store'] & Pick<ChannelStore, 'recordEvent'>;
  waitForInbox: InboxHolderDeps['waitForInbox'];
}

interface Attachment {
  key: string;
  type: ResourceType;
  filename: string;
}

interface Parsed {
  text: string;
  attachments: Attachment[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const safeName = (raw: unknown, fallback: string) => {
  const name = (typeof raw === 'string' ? raw : '').split(/[\\/]/).pop() ?? '';
  return name && !fileNameProblem(name) ? name : fallback;
};

/** A rich-text (`post`) message: its text, line by line, and its images. */
function parsePost(content: Record<string, unknown>): Parsed {
  // Either `{title, content}` or the same under a locale (`{zh_cn: {...}}`).
  const body = Array.isArray(content.content) ? content : (Object.values(content).find((v) => isObject(v) && Array.isArray(v.content)) as Record<string, unknown> | undefined);
  const lines: string[] = typeof body?.title === 'string' && body.title ? [body.title] : [];
  const attachments: Attachment[] = [];
  for (const paragraph of Array.isArray(body?.content) ? body.content : []) {
    const parts: string[] = [];
    for (const element of Array.isArray(paragraph) ? paragraph.filter(isObject) : []) {
      if (typeof element.text === 'string') parts.push(element.text);
      if (element.tag === 'img' && typeof element.image_key === 'string') attachments.push({ key: element.image_key, type: 'image', filename: `image-${element.image_key}.png` });
    }
    lines.push(parts.join(''));
  }
  return { text: lines.join('\n'), attachments };
}

/** The message's text and files; null for a kind of message this channel does not read. */
export function parseMessage(message: NonNullable<FeishuMessageEvent['message']>): Parsed | null {
  let content: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(message.content);
    content = isObject(parsed) ? parsed : {};
  } catch {
    // Content that is not JSON carries nothing this channel can read: it counts as empty.
    content = {};
  }
  let parsed: Parsed | null = null;
  if (message.message_type === 'text') parsed = { text: typeof content.text === 'string' ? content.text : '', attachments: [] };
  else if (message.message_type === 'post') parsed = parsePost(content);
  else if (message.message_type === 'file' && typeof content.file_key === 'string') {
    parsed = { text: '', attachments: [{ key: content.file_key, type: 'file', filename: safeName(content.file_name, `file-${content.file_key}`) }] };
  } else if (message.message_type === 'image' && typeof content.image_key === 'string') {
    parsed = { text: '', attachments: [{ key: content.image_key, type: 'image', filename: `image-${content.image_key}.png` }] };
  }
  if (!parsed) return null;
  // Mentions (`@_user_1`, the bot's own in a group) are placeholders, not words.
  for (const mention of message.mentions ?? []) parsed.text = parsed.text.split(mention.key).join('');
  parsed.text = parsed.text.trim();
  return parsed;
}

/** A message event as Warren reads it. */
export function incomingOf(api: FeishuApi, message: NonNullable<FeishuMessageEvent['message']>, userId: string): IncomingMessage {
  // A topic of a chat is a conversation of its own.
  const conversation = message.thread_id ? `${message.chat_id}:${message.thread_id}` : message.chat_id;
  // A kind of message not read here has neither text nor files: it is answered as unsupported.
  const parsed = parseMessage(message) ?? { text: '', attachments: [] };
  const attachments: IncomingAttachment[] = parsed.attachments.map((a) => ({
    filename: a.filename,
    size: null,
    download: (maxBytes: number) => api.download(message.message_id, a.key, a.type, maxBytes),
  }));
  return {
    origin: { conversation, chatId: message.chat_id, messageId: message.message_id, userId },
    command: attachments.length === 0 ? commandOf(parsed.text) : null,
    text: parsed.text,
    attachments,
  };
}

export function createFeishuConnection(deps: FeishuConnectionDeps) {
  const { api, config, log, store } = deps;
  const messages = createChatMessages({
    ...deps,
    platform: 'Feishu',
    allowedUsers: config.allowed_users,
    readable: 'text, rich text, files and images',
    fileLimit: Math.min(deps.maxFileBytes, FEISHU_DOWNLOAD_LIMIT),
    retry: feishuRetry,
  });

  /** Handles one recorded event until it is done; a refusal is answered, an outage waited out. */
  async function handleEvent(body: unknown, signal: AbortSignal): Promise<void> {
    const event = (body ?? {}) as FeishuMessageEvent;
    const message = event.message;
    // Only people's messages are conversations (not other bots', nor the app's own).
    if (!message || (event.sender?.sender_type !== undefined && event.sender.sender_type !== 'user')) return;
    const reply = await messages.handle(incomingOf(api, message, event.sender?.sender_id?.open_id ?? ''), signal);
    if (reply === null) return;
    await feishuRetry.untilDone(() => api.replyText(message.message_id, reply), signal, log, 'replying').catch((err: unknown) => {
      if (signal.aborted) throw err;
      // The chat is gone, the bot was removed: the message is done with all the same.
      log.warn({ err, chat_id: message.chat_id }, 'feishu: a reply could not be sent');
    });
  }

  /** Records an event that came over the long connection (once per event_id), before it is acknowledged. */
  async function record(data: FeishuMessageEvent, signal: AbortSignal): Promise<void> {
    const eventId = data.event_id ?? data.message?.message_id;
    if (!eventId || signal.aborted) throw new ChannelEventNotTakenError('not taken in: no event_id, or the connection is closing');
    await store.recordEvent('feishu', eventId, JSON.stringify(data));
  }

  /**
   * The long connection, until `signal` aborts: each time it ends (the platform dropped it, the
   * endpoint was refused) it is opened again with backoff, and the channel's status says why.
   */
  async function holdLongConnection(signal: AbortSignal): Promise<void> {
    const dispatcher = new lark.EventDispatcher({
      verificationToken: deps.credentials.verificationToken,
      encryptKey: deps.credentials.encryptKey,
      logger: sdkLogger(log),
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      // Acknowledged once recorded in Redis (the platform wants an answer within seconds).
      'im.message.receive_v1': async (data: FeishuMessageEvent) => {
        await record(data, signal);
        return undefined;
      },
    });

    const report = (fields: { connected: boolean; last_error?: string | null }) => store.report('feishu', fields).catch(() => undefined); // only the status page: the connection goes on either way

    /**
     * One long connection, until it drops, fails or `signal` aborts. The SDK's own reconnecting
     * is off: its waits (minutes before the platform has given its own) would hold the lease
     * with nothing connected; this loop reconnects with its backoff instead.
     */
    async function connectOnce(): Promise<string | null> {
      let ended: (why: string | null) => void = () => undefined;
      const done = new Promise<string | null>((resolve) => (ended = resolve));
      let started = false;
      const ws = new lark.WSClient({
        appId: deps.credentials.appId,
        appSecret: deps.credentials.appSecret,
        domain: config.base_url.replace(/\/+$/, ''),
        logger: sdkLogger(log),
        loggerLevel: lark.LoggerLevel.warn,
        autoReconnect: false,
        onReady: () => void report({ connected: true, last_error: null }),
        onError: (err: Error) => ended(err.message),
      });
      const onAbort = () => ended(null);
      signal.addEventListener('abort', onAbort, { once: true });
      // Once started, a connection that is not up (the platform closed it, the network dropped) has ended.
      const watch = setInterval(() => {
        if (started && ws.getConnectionStatus().state !== 'connected') ended('the long connection was closed');
      }, 500);
      try {
        await ws.start({ eventDispatcher: dispatcher });
        started = true;
        return await done;
      } finally {
        clearInterval(watch);
        signal.removeEventListener('abort', onAbort);
        ws.close({ force: true });
      }
    }

    let failures = 0;
    while (!signal.aborted) {
      const since = Date.now();
      const why = await connectOnce();
      if (signal.aborted) break;
      // A connection that held a while was fine: its drop starts the backoff afresh.
      failures = Date.now() - since > 60_000 ? 1 : failures + 1;
      log.warn({ why, attempt: failures }, 'feishu: the long connection ended; connecting again');
      await report({ connected: false, last_error: why });
      await delay(feishuRetry.backoffMs(failures, null), undefined, { signal }).catch(() => undefined); // aborted: the loop's check ends it
    }
  }

  /** Holds the connection until `held` aborts; `token` fences the inbox removals. */
  async function run(token: string, held: AbortSignal): Promise<void> {
    if (config.allowed_users.length === 0) log.warn('feishu: allowed_users is empty, so anyone who can reach the bot can start runs');
    await holdInbox('feishu', deps, token, held, async () => ({ listen: config.mode === 'events' ? null : holdLongConnection, handle: handleEvent }));
  }

  return { run, record, handleEvent };
}
