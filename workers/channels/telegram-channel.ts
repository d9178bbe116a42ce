// Telegram's connection, run by the worker that holds its lease: long polling with getUpdates,
// each update handled until it is durably a run (or a reply, for a message that is refused)
// before the offset in Redis moves past it, so a message that was received is never dropped.
// A poll or a reply that fails for Telegram's sake (no answer, 5xx, 429) is retried with backoff.
import { setTimeout as delay } from 'node:timers/promises';
import type { TelegramChannelConfig } from '../../src/config/app-config.schemas.js';
import type { ChannelStore } from '../../src/channels/channels.js';
import { fileNameProblem } from '../../src/workspace/thread-files.js';
import { ChannelLeaseLostError } from './channels.errors.js';
import { commandOf, createChatMessages, type ConnectionParts, type IncomingAttachment, type IncomingMessage } from './chat-messages.js';
import type { TelegramApi, TelegramMessage, TelegramUpdate } from './telegram-api.js';
import { backoffMs, telegramRetry, untilDone } from './telegram-retry.js';

/** The Bot API serves files up to 20 MB to bots (getFile). */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1000 * 1000;

export interface TelegramConnectionDeps extends ConnectionParts {
  config: TelegramChannelConfig;
  api: TelegramApi;
  store: Pick<ChannelStore, 'offset' | 'raiseOffset' | 'report' | 'owed'>;
}

/** The message's file: a document, or the largest size of a photo. */
function attachmentOf(api: TelegramApi, message: TelegramMessage): IncomingAttachment | null {
  const download = (fileId: string) => (maxBytes: number, signal: AbortSignal) => api.download(fileId, maxBytes, signal);
  if (message.document) {
    const raw = (message.document.file_name ?? '').split(/[\\/]/).pop() ?? '';
    const filename = raw && !fileNameProblem(raw) ? raw : `document-${message.document.file_unique_id}`;
    return { filename, size: message.document.file_size ?? null, download: download(message.document.file_id) };
  }
  const photo = message.photo?.at(-1);
  if (photo) return { filename: `photo-${photo.file_unique_id}.jpg`, size: photo.file_size ?? null, download: download(photo.file_id) };
  return null;
}

export function createTelegramConnection(deps: TelegramConnectionDeps) {
  const { api, config, log } = deps;
  const messages = createChatMessages({
    ...deps,
    platform: 'Telegram',
    allowedUsers: config.allowed_users.map(String),
    readable: 'text, documents and photos',
    fileLimit: Math.min(deps.maxFileBytes, TELEGRAM_DOWNLOAD_LIMIT),
    retry: telegramRetry,
  });

  /** The update's message as Warren reads it. */
  function incoming(message: TelegramMessage): IncomingMessage {
    const chatId = String(message.chat.id);
    const attachment = attachmentOf(api, message);
    return {
      origin: { conversation: chatId, chatId, messageId: String(message.message_id), userId: String(message.from?.id ?? ''), ...(message.from?.username ? { userName: message.from.username } : {}) },
      command: commandOf(message.text),
      text: message.text ?? message.caption ?? '',
      attachments: attachment ? [attachment] : [],
    };
  }

  /** Handles one update until it is done; a refusal is answered, an outage waited out. */
  async function handleUpdate(update: TelegramUpdate, signal: AbortSignal): Promise<void> {
    const { message } = update;
    // Edited messages, channel posts and the like are not conversations here.
    if (!message) return;
    const reply = await messages.handle(incoming(message), signal);
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
          await deps.store.report('telegram', { connected: false, last_error: err instanceof Error ? err.message : String(err) }).catch(() => undefined); // only the status page; polling retries regardless
          await delay(backoffMs(failures, err), undefined, { signal }).catch(() => undefined); // aborted: the loop's check ends it
          continue;
        }
        failures = 0;
        if (!connected) {
          connected = true;
          await deps.store.report('telegram', { connected: true, last_error: null });
        }
        for (const update of updates) {
          await handleUpdate(update, signal);
          if (!(await deps.store.raiseOffset('telegram', token, update.update_id + 1))) throw new ChannelLeaseLostError('the lease was taken over; this worker stops polling');
        }
      }
    } finally {
      deps.answers.stopAll();
    }
  }

  return { run, handleUpdate };
}
