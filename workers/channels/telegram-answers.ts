// How an answer reaches a Telegram chat: one message, started with the first text and edited as
// the answer grows, at most one edit per `edit_interval_ms` per chat (and none while a 429's
// `retry_after` runs); when the run ends, the final text (split at Telegram's 4096 characters)
// and each presented file as a document. Edits along the way are best effort; the final answer
// is retried until it gets through.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { OwedReply } from '../../src/store/channels.js';
import type { ThreadFiles } from '../../src/store/thread-files.js';
import type { AnswerSink, FinalAnswer } from './run-answers.js';
import { TelegramError, type TelegramApi } from './telegram-api.js';
import { untilDone } from './telegram-retry.js';

export const TELEGRAM_TEXT_LIMIT = 4096;

/** Splits text into pieces Telegram accepts, at line breaks where it can. */
export function splitText(text: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = rest.lastIndexOf('\n', limit);
    const at = cut > limit / 2 ? cut : limit;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  if (rest !== '' || pieces.length === 0) pieces.push(rest);
  return pieces;
}

/** The chat's view of how a run ended. */
export function finalText(answer: FinalAnswer): string {
  const text = answer.text.trim();
  if (answer.status === 'error') return [text, `The run failed: ${answer.error ?? 'no reason given'}`].filter(Boolean).join('\n\n');
  if (answer.status === 'timeout') return [text, 'The run timed out.'].filter(Boolean).join('\n\n');
  if (answer.status === 'interrupted') return [text, '(stopped)'].filter(Boolean).join('\n\n');
  return text || '(no answer)';
}

const notModified = (err: unknown) => err instanceof TelegramError && err.code === 400 && /not modified/i.test(err.message);

interface Streamed {
  messageId: number | null;
  /** Text the message shows now, and the newest text to show. */
  shown: string;
  latest: string;
  timer: NodeJS.Timeout | null;
  sending: Promise<void> | null;
  finished: boolean;
}

export interface TelegramAnswersDeps {
  api: TelegramApi;
  files: Pick<ThreadFiles, 'resolveVirtual'>;
  editIntervalMs: number;
  /** Aborts when the connection is dropped: retries stop, the answer stays owed. */
  signal: AbortSignal;
  log: Logger;
}

export function createTelegramAnswers(deps: TelegramAnswersDeps): AnswerSink {
  const { api, log, signal } = deps;
  const streams = new Map<string, Streamed>();
  /** Per chat: when the next edit may go. */
  const readyAt = new Map<string, number>();

  async function flush(s: Streamed, owed: OwedReply): Promise<void> {
    const text = s.latest.length > TELEGRAM_TEXT_LIMIT ? `${s.latest.slice(0, TELEGRAM_TEXT_LIMIT - 1)}…` : s.latest;
    if (text === s.shown) return;
    readyAt.set(owed.chat_id, Date.now() + deps.editIntervalMs);
    try {
      if (s.messageId === null) s.messageId = await api.sendMessage(owed.chat_id, text, owed.reply_to);
      else await api.editMessageText(owed.chat_id, s.messageId, text);
      s.shown = text;
    } catch (err) {
      if (err instanceof TelegramError && err.retryAfter !== null) readyAt.set(owed.chat_id, Date.now() + err.retryAfter * 1000);
      else if (!notModified(err)) log.debug({ err, run_id: owed.run_id }, 'telegram: a streamed edit failed; the final answer follows anyway');
    }
  }

  function schedule(s: Streamed, owed: OwedReply): void {
    if (s.timer || s.sending || s.finished) return;
    const wait = Math.max(0, (readyAt.get(owed.chat_id) ?? 0) - Date.now());
    s.timer = setTimeout(() => {
      s.timer = null;
      s.sending = flush(s, owed).finally(() => {
        s.sending = null;
        if (s.latest !== s.shown) schedule(s, owed);
      });
    }, wait);
  }

  const send = (owed: OwedReply, text: string) => untilDone(() => api.sendMessage(owed.chat_id, text, owed.reply_to), signal, log, 'sending an answer');

  async function sendArtifact(owed: OwedReply, virtual: string): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(await deps.files.resolveVirtual(owed.thread_id, virtual));
    } catch (err) {
      log.warn({ err, run_id: owed.run_id, artifact: virtual }, 'telegram: a presented file could not be read');
      await send(owed, `${virtual} could not be read, so it is not attached.`);
      return;
    }
    await untilDone(() => api.sendDocument(owed.chat_id, path.basename(virtual), bytes, owed.reply_to), signal, log, 'sending a file').catch(async (err: unknown) => {
      if (signal.aborted) throw err;
      await send(owed, `${path.basename(virtual)} could not be sent: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  return {
    progress(owed, text) {
      let s = streams.get(owed.run_id);
      if (!s) streams.set(owed.run_id, (s = { messageId: null, shown: '', latest: '', timer: null, sending: null, finished: false }));
      s.latest = text;
      schedule(s, owed);
    },

    async finish(owed, answer) {
      const s = streams.get(owed.run_id);
      if (s) {
        s.finished = true;
        if (s.timer) clearTimeout(s.timer);
        await s.sending;
      }
      try {
        const [first = '', ...rest] = splitText(finalText(answer));
        if (s?.messageId != null) {
          const messageId = s.messageId;
          if (first !== s.shown) {
            await untilDone(() => api.editMessageText(owed.chat_id, messageId, first), signal, log, 'editing the answer').catch(async (err: unknown) => {
              if (signal.aborted) throw err;
              // Not modified: it already shows this; anything else (the message is gone): send it anew.
              if (!notModified(err)) await send(owed, first);
            });
          }
        } else {
          await send(owed, first);
        }
        for (const piece of rest) await send(owed, piece);
        for (const artifact of answer.artifacts) await sendArtifact(owed, artifact);
      } catch (err) {
        // Refused for good (the user blocked the bot, the chat is gone): owing it longer helps nobody.
        if (signal.aborted || !(err instanceof TelegramError) || err.transient) throw err;
        log.warn({ err, run_id: owed.run_id, chat_id: owed.chat_id }, 'telegram: an answer was refused; dropped');
      } finally {
        streams.delete(owed.run_id);
      }
    },
  };
}
