// How an answer reaches a Telegram chat (workers/channels/streamed-answers.ts): messages of up to
// 4096 characters, sent as replies and edited with editMessageText (which refuses an edit that
// changes nothing as "not modified"), files as documents.
import type { ChatPoster } from './streamed-answers.js';
import { TelegramError, type TelegramApi } from './telegram-api.js';

export const TELEGRAM_TEXT_LIMIT = 4096;

const notModified = (err: unknown) => err instanceof TelegramError && err.code === 400 && /not modified/i.test(err.message);

export function telegramPoster(api: TelegramApi): ChatPoster {
  return {
    name: 'telegram',
    textLimit: TELEGRAM_TEXT_LIMIT,
    post: async (owed, text) => String(await api.sendMessage(owed.chat_id, text, owed.reply_to)),
    edit: (owed, messageId, text) => api.editMessageText(owed.chat_id, Number(messageId), text),
    sendFile: (owed, filename, bytes) => api.sendDocument(owed.chat_id, filename, bytes, owed.reply_to),
    unchanged: notModified,
  };
}
