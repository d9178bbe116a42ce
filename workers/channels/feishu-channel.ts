// Feishu's connection, run by the worker that holds its lease: the open platform's long
// connection (the SDK's WSClient, which asks /callback/ws/endpoint for its address and speaks
// protobuf frames), on which message events arrive. Each event is first queued in Redis (once
// per event_id: the platform may deliver one twice) and acknowledged; the queue is then worked
// through, each event until it is durably a run (or a reply, for a message that is refused),
// one at a time per conversation. A worker that takes over works through what its predecessor
// left queued, so an acknowledged event is never lost. Calls that fail for Feishu's sake are
// retried with backoff.
import * as lark from '@larksuiteoapi/node-sdk';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { FeishuChannelConfig } from '../../src/config/app-config.schemas.js';
import { WarrenError } from '../../src/errors.js';
import { CHANNEL_EVENT_MEMORY_MS, type ChannelStore } from '../../src/store/channels.js';
import { fileNameProblem } from '../../src/store/thread-files.js';
import type { ChatOrigin } from './chat-runs.js';
import { storeChatUpload, type ChatConnectionDeps } from './chat-connection.js';
import type { FeishuAnswers } from './feishu-answers.js';
import { FeishuError, sdkLogger, type FeishuApi, type ResourceType } from './feishu-api.js';
import { untilDone } from './feishu-retry.js';
import { doublingBackoffMs } from './retry.js';
import { commandOf } from './telegram-channel.js';

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

export interface FeishuConnectionDeps extends ChatConnectionDeps {
  config: FeishuChannelConfig;
  credentials: { appId: string; appSecret: string; verificationToken?: string; encryptKey?: string };
  api: FeishuApi;
  store: Pick<ChannelStore, 'report' | 'owed' | 'queueEvent' | 'readEvents' | 'eventDone'>;
  /** A Redis connection of the connection's own, for waiting on the event queue. */
  blocking: Redis;
  cards: Pick<FeishuAnswers, 'open'>;
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

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

export function createFeishuConnection(deps: FeishuConnectionDeps) {
  const { api, config, chatRuns, log } = deps;
  const fileLimit = Math.min(deps.maxFileBytes, FEISHU_DOWNLOAD_LIMIT);

  /** The attachment's bytes (a file over the limit is refused: a FeishuError 413). */
  const download = (messageId: string, attachment: Attachment, signal: AbortSignal) =>
    untilDone(() => api.download(messageId, attachment.key, attachment.type, fileLimit), signal, log, 'downloading a file');

  /** What a message does; returns the reply for a message that does not become a run. */
  async function handleMessage(event: FeishuMessageEvent, signal: AbortSignal): Promise<string | null> {
    const message = event.message as NonNullable<FeishuMessageEvent['message']>;
    const userId = event.sender?.sender_id?.open_id ?? '';
    if (config.allowed_users.length > 0 && !config.allowed_users.includes(userId)) {
      return `Sorry, this bot only answers its allowed users. Your open_id is ${userId || 'unknown'}.`;
    }
    const conversation = message.thread_id ? `${message.chat_id}:${message.thread_id}` : message.chat_id;
    const origin: ChatOrigin = { conversation, chatId: message.chat_id, messageId: message.message_id, userId };
    const parsed = parseMessage(message);
    if (parsed === null) return 'I read text, rich text, files and images; this kind of message is not supported.';
    const name = parsed.attachments.length === 0 ? commandOf(parsed.text) : null;
    if (name !== null) return chatRuns.command(name, origin);
    if (parsed.text === '' && parsed.attachments.length === 0) return 'That message has no text to answer.';
    // Every file is downloaded before anything is made: one over the limit leaves no trace.
    const downloads: Uint8Array[] = [];
    for (const attachment of parsed.attachments) downloads.push(await download(message.message_id, attachment, signal));
    const threadId = await chatRuns.threadFor(origin);
    const lines = parsed.text === '' ? [] : [parsed.text];
    for (const [i, attachment] of parsed.attachments.entries()) {
      // Stored with conversion, into the thread's uploads; the agent is told where.
      lines.push(`[I attached ${attachment.filename}: ${await storeChatUpload(deps, threadId, attachment.filename, downloads[i] as Uint8Array)}]`);
    }
    const owed = await chatRuns.start(origin, threadId, lines.join('\n\n'));
    deps.answers.follow(owed);
    await deps.cards.open(owed);
    return null;
  }

  /** Handles one event until it is done; a refusal is answered, an outage waited out. */
  async function handleEvent(event: FeishuMessageEvent, signal: AbortSignal): Promise<void> {
    const message = event.message;
    // Only people's messages are conversations (not other bots', nor the app's own).
    if (!message || (event.sender?.sender_type !== undefined && event.sender.sender_type !== 'user')) return;
    const reply = await untilDone(
      async () => {
        try {
          return await handleMessage(event, signal);
        } catch (err) {
          // A refusal (assistant gone, a file over a limit) will not change by trying again: say why.
          if (err instanceof WarrenError && err.statusCode < 500) return `Sorry, that did not work: ${err.message}`;
          if (err instanceof FeishuError && err.status === 413) return `That file is too large: files up to ${mib(fileLimit)} are accepted. Nothing was started.`;
          if (err instanceof FeishuError && !err.transient) return `Sorry, the file could not be downloaded: ${err.message}`;
          throw err;
        }
      },
      signal,
      log,
      'handling a message',
    );
    if (reply === null) return;
    await untilDone(() => api.replyText(message.message_id, reply), signal, log, 'replying').catch((err: unknown) => {
      if (signal.aborted) throw err;
      // The chat is gone, the bot was removed: the message is done with all the same.
      log.warn({ err, chat_id: message.chat_id }, 'feishu: a reply could not be sent');
    });
  }

  /** Runs until `signal` aborts. */
  async function run(_token: string, signal: AbortSignal): Promise<void> {
    if (config.allowed_users.length === 0) log.warn('feishu: allowed_users is empty, so anyone who can reach the bot can start runs');
    /** Per conversation, the event being worked on: a conversation's messages are handled in order. */
    const chains = new Map<string, Promise<void>>();
    const working = new Set<string>();

    function work(id: string, raw: string): void {
      if (working.has(id)) return;
      working.add(id);
      let event: FeishuMessageEvent;
      try {
        event = JSON.parse(raw) as FeishuMessageEvent;
      } catch {
        event = {};
      }
      const key = event.message ? `${event.message.chat_id}:${event.message.thread_id ?? ''}` : '';
      const next = (chains.get(key) ?? Promise.resolve())
        .then(async () => {
          await handleEvent(event, signal);
          await deps.store.eventDone('feishu', id);
        })
        .catch((err: unknown) => {
          // Left queued: the next holder handles it.
          if (!signal.aborted) log.error({ err, event_id: event.event_id }, 'feishu: an event could not be handled; it stays queued');
        })
        .finally(() => {
          working.delete(id);
          if (chains.get(key) === next) chains.delete(key);
        });
      chains.set(key, next);
    }

    const dispatcher = new lark.EventDispatcher({
      verificationToken: deps.credentials.verificationToken,
      encryptKey: deps.credentials.encryptKey,
      logger: sdkLogger(log),
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      // Acknowledged once queued in Redis (the platform wants an answer within seconds).
      'im.message.receive_v1': async (data: FeishuMessageEvent) => {
        const eventId = data.event_id ?? data.message?.message_id;
        if (!eventId || signal.aborted) throw new Error('not taken in: no event_id, or the connection is closing');
        // The queue's reader (below) takes it from there.
        await deps.store.queueEvent('feishu', eventId, JSON.stringify(data), CHANNEL_EVENT_MEMORY_MS);
        return undefined;
      },
    });

    const report = (fields: { connected: boolean; last_error?: string | null }) => deps.store.report('feishu', fields).catch(() => undefined);

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

    /** Works through the queue: first what a previous holder took in and did not finish, then each new event, whichever way it came. */
    async function readQueue(): Promise<void> {
      let after = '0';
      while (!signal.aborted) {
        try {
          for (const queued of await deps.store.readEvents('feishu', after, QUEUE_WAIT_MS, deps.blocking)) {
            work(queued.id, queued.event);
            after = queued.id;
          }
        } catch (err) {
          if (signal.aborted) break;
          log.warn({ err }, 'feishu: the event queue could not be read; trying again');
          await delay(1_000, undefined, { signal }).catch(() => undefined);
        }
      }
    }

    try {
      for (const owed of await deps.store.owed('feishu')) deps.answers.follow(owed);
      const reading = readQueue();
      if (config.mode === 'events') {
        // Events come over HTTP to the API, which queues them: nothing to connect to.
        await report({ connected: true, last_error: null });
        await reading;
        return;
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
        await delay(doublingBackoffMs(failures), undefined, { signal }).catch(() => undefined);
      }
    } finally {
      deps.answers.stopAll();
    }
  }

  return { run, handleEvent };
}
