// Telegram's connection, run by the worker that holds its lease: long polling with getUpdates,
// each update handled until it is durably a run (or a reply, for a message that is refused)
// before the offset in Redis moves past it, so a message that was received is never dropped.
// A poll or a reply that fails for Telegram's sake (no answer, 5xx, 429) is retried with backoff.
import { setTimeout as delay } from 'node:timers/promises';
import type { TelegramChannelConfig } from '../../src/config/app-config.schemas.js';
import { WarrenError } from '../../src/errors.js';
import type { ChannelStore } from '../../src/store/channels.js';
import { fileNameProblem } from '../../src/store/thread-files.js';
import type { ChatOrigin } from './chat-runs.js';
import { storeChatUpload, type ChatConnectionDeps } from './chat-connection.js';
import { TelegramError, type TelegramApi, type TelegramMessage, type TelegramUpdate } from './telegram-api.js';
import { backoffMs, untilDone } from './telegram-retry.js';

/** The Bot API serves files up to 20 MB to bots (getFile). */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1000 * 1000;

export interface TelegramConnectionDeps extends ChatConnectionDeps {
  config: TelegramChannelConfig;
  api: TelegramApi;
  store: Pick<ChannelStore, 'offset' | 'raiseOffset' | 'report' | 'owed'>;
}

interface Attachment {
  fileId: string;
  filename: string;
  size: number | null;
}

/** The message's file: a document, or the largest size of a photo. */
function attachmentOf(message: TelegramMessage): Attachment | null {
  if (message.document) {
    const raw = (message.document.file_name ?? '').split(/[\\/]/).pop() ?? '';
    const filename = raw && !fileNameProblem(raw) ? raw : `document-${message.document.file_unique_id}`;
    return { fileId: message.document.file_id, filename, size: message.document.file_size ?? null };
  }
  const photo = message.photo?.at(-1);
  if (photo) return { fileId: photo.file_id, filename: `photo-${photo.file_unique_id}.jpg`, size: photo.file_size ?? null };
  return null;
}

/** `/name` or `/name@bot` at the start of a text, lower-cased; null for any other text. */
export function commandOf(text: string | undefined): string | null {
  const match = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s|$)/.exec(text ?? '');
  return match ? (match[1] as string).toLowerCase() : null;
}

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

export function createTelegramConnection(deps: TelegramConnectionDeps) {
  const { api, config, chatRuns, log } = deps;
  const fileLimit = Math.min(deps.maxFileBytes, TELEGRAM_DOWNLOAD_LIMIT);

  /** Downloads the attachment into the thread's uploads and stores it (with conversion); its virtual path. */
  async function upload(threadId: string, attachment: Attachment, signal: AbortSignal): Promise<string> {
    const bytes = await untilDone(() => api.download(attachment.fileId, fileLimit, signal), signal, log, 'downloading a file');
    return storeChatUpload(deps, threadId, attachment.filename, bytes);
  }

  /** What a message does; returns the reply for a message that does not become a run. */
  async function handleMessage(message: TelegramMessage, signal: AbortSignal): Promise<string | null> {
    const userId = message.from?.id;
    if (config.allowed_users.length > 0 && (userId === undefined || !config.allowed_users.includes(userId))) {
      return `Sorry, this bot only answers its allowed users. Your Telegram user id is ${userId ?? 'unknown'}.`;
    }
    const chatId = String(message.chat.id);
    const origin: ChatOrigin = { conversation: chatId, chatId, messageId: String(message.message_id), userId: String(userId ?? '') };
    const name = commandOf(message.text);
    if (name !== null) return chatRuns.command(name, origin);
    const text = (message.text ?? message.caption ?? '').trim();
    const attachment = attachmentOf(message);
    if (text === '' && attachment === null) return 'I read text, documents and photos; this kind of message is not supported.';
    if (attachment?.size != null && attachment.size > fileLimit) {
      return `${attachment.filename} is ${mib(attachment.size)}; files up to ${mib(fileLimit)} are accepted. Nothing was started.`;
    }
    const threadId = await chatRuns.threadFor(origin);
    const lines = text === '' ? [] : [text];
    if (attachment) lines.push(`[I attached ${attachment.filename}: ${await upload(threadId, attachment, signal)}]`);
    deps.answers.follow(await chatRuns.start(origin, threadId, lines.join('\n\n')));
    return null;
  }

  /** Handles one update until it is done; a refusal is answered, an outage waited out. */
  async function handleUpdate(update: TelegramUpdate, signal: AbortSignal): Promise<void> {
    const { message } = update;
    // Edited messages, channel posts and the like are not conversations here.
    if (!message) return;
    const reply = await untilDone(
      async () => {
        try {
          return await handleMessage(message, signal);
        } catch (err) {
          // A refusal (assistant gone, a file over a limit) will not change by trying again: say why.
          if (err instanceof WarrenError && err.statusCode < 500) return `Sorry, that did not work: ${err.message}`;
          if (err instanceof TelegramError && err.code === 413) return `That file is too large: files up to ${mib(fileLimit)} are accepted.`;
          throw err;
        }
      },
      signal,
      log,
      'handling a message',
    );
    if (reply === null) return;
    await untilDone(() => api.sendMessage(String(message.chat.id), reply, String(message.message_id)), signal, log, 'replying').catch((err: unknown) => {
      if (signal.aborted) throw err;
      // The user blocked the bot, the chat is gone: the message is done with all the same.
      log.warn({ err, chat_id: message.chat.id }, 'telegram: a reply could not be sent');
    });
  }

  /** Polls until `signal` aborts; `token` fences the offset writes. */
  async function run(token: string, signal: AbortSignal): Promise<void> {
    if (config.allowed_users.length === 0) log.warn('telegram: allowed_users is empty, so anyone who finds the bot can start runs');
    try {
      for (const owed of await deps.store.owed('telegram')) deps.answers.follow(owed);
      let failures = 0;
      let connected = false;
      while (!signal.aborted) {
        let updates: TelegramUpdate[];
        try {
          updates = await api.getUpdates(await deps.store.offset('telegram'), config.poll_timeout_seconds, signal);
        } catch (err) {
          if (signal.aborted) break;
          failures++;
          connected = false;
          log.warn({ err, attempt: failures }, 'telegram: polling failed; trying again');
          await deps.store.report('telegram', { connected: false, last_error: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
          await delay(backoffMs(failures, err), undefined, { signal }).catch(() => undefined);
          continue;
        }
        failures = 0;
        if (!connected) {
          connected = true;
          await deps.store.report('telegram', { connected: true, last_error: null });
        }
        for (const update of updates) {
          await handleUpdate(update, signal);
          if (!(await deps.store.raiseOffset('telegram', token, update.update_id + 1))) throw new Error('the lease was taken over; this worker stops polling');
        }
      }
    } finally {
      deps.answers.stopAll();
    }
  }

  return { run, handleUpdate };
}
