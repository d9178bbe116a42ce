// How an answer reaches a chat, whatever the platform: one message, started with the first text
// and edited as the answer grows, at most one edit per `editIntervalMs` per chat (and none while
// a rate limit's wait runs); when the run ends, the final text (split at the platform's limit)
// and each presented file. Edits along the way are best effort; the final answer is retried
// until it gets through. The platform's side (send, edit, send a file) is a ChatPoster. The
// message's id is kept in Redis until the answer is settled, so a worker that takes the
// connection over edits the same message rather than sending another. A platform that shows
// something at once (Feishu's card, "…") gets its placeholder posted as the run starts.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ChannelName, ChannelStore, OwedReply } from '../../src/channels/channels.js';
import type { ThreadFiles } from '../../src/workspace/thread-files.js';
import type { Retry } from './retry.js';
import type { AnswerSink, FinalAnswer } from './run-answers.js';

/** Splits text into pieces of at most `limit` characters, at line breaks where it can. */
export function splitText(text: string, limit: number): string[] {
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

/** A platform's way of showing a message and sending a file, for the answer owed. */
export interface ChatPoster {
  /** The platform's name, for log lines. */
  name: string;
  /** The most characters one message may hold. */
  textLimit: number;
  /** What the answer's message shows from the moment the run starts, before its first words; none: the message comes with them. */
  placeholder?: string;
  /** Sends a message (a reply to `owed.reply_to`); the id it can be edited by. */
  post(owed: OwedReply, text: string): Promise<string>;
  edit(owed: OwedReply, messageId: string, text: string): Promise<void>;
  sendFile(owed: OwedReply, filename: string, bytes: Uint8Array): Promise<void>;
  /** An edit refused because the message shows this text already. */
  unchanged(err: unknown): boolean;
}

interface Streamed {
  messageId: string | null;
  /** Text the message shows now, and the newest text to show. */
  shown: string;
  latest: string;
  timer: NodeJS.Timeout | null;
  sending: Promise<void> | null;
  finished: boolean;
}

export interface StreamedAnswersDeps {
  channel: ChannelName;
  poster: ChatPoster;
  /** Where the answer's message id is kept until the answer is settled. */
  store: Pick<ChannelStore, 'answerMessage' | 'setAnswerMessage'>;
  retry: Retry;
  files: Pick<ThreadFiles, 'resolveVirtual'>;
  editIntervalMs: number;
  /** Aborts when the connection is dropped: retries stop, the answer stays owed. */
  signal: AbortSignal;
  log: Logger;
}

export function createStreamedAnswers(deps: StreamedAnswersDeps): AnswerSink {
  const { channel, poster, retry, log, signal, store } = deps;
  const limit = poster.textLimit;
  const streams = new Map<string, Streamed>();
  /** Per chat: when the next edit may go. */
  const readyAt = new Map<string, number>();

  const streamOf = (owed: OwedReply): Streamed => {
    let s = streams.get(owed.run_id);
    if (!s) streams.set(owed.run_id, (s = { messageId: null, shown: '', latest: '', timer: null, sending: null, finished: false }));
    return s;
  };

  /** The answer's message as Redis knows it (a previous holder sent it), once per stream. */
  async function known(s: Streamed, owed: OwedReply): Promise<string | null> {
    s.messageId ??= await store.answerMessage(channel, owed.run_id);
    return s.messageId;
  }

  /** Sends the answer's message showing `text`, and remembers it. */
  async function open(s: Streamed, owed: OwedReply, text: string, post: () => Promise<string>): Promise<string> {
    const messageId = await post();
    s.messageId = messageId;
    s.shown = text;
    await store.setAnswerMessage(channel, owed.run_id, messageId);
    return messageId;
  }

  async function flush(s: Streamed, owed: OwedReply): Promise<void> {
    const text = s.latest.length > limit ? `${s.latest.slice(0, limit - 1)}…` : s.latest;
    if (text === s.shown) return;
    readyAt.set(owed.chat_id, Date.now() + deps.editIntervalMs);
    try {
      const messageId = await known(s, owed);
      if (messageId === null) await open(s, owed, text, () => poster.post(owed, text));
      else await poster.edit(owed, messageId, text);
      s.shown = text;
    } catch (err) {
      const waitMs = retry.retryAfterMs(err);
      if (waitMs !== null) readyAt.set(owed.chat_id, Date.now() + waitMs);
      else if (!poster.unchanged(err)) log.debug({ err, run_id: owed.run_id }, `${poster.name}: a streamed edit failed; the final answer follows anyway`);
    }
  }

  /** Runs one flush (nothing else goes meanwhile), then schedules the next if the text moved on. */
  function sendNow(s: Streamed, owed: OwedReply, task: () => Promise<void>): void {
    s.sending = task().finally(() => {
      s.sending = null;
      if (s.latest !== s.shown) schedule(s, owed);
    });
  }

  function schedule(s: Streamed, owed: OwedReply): void {
    if (s.timer || s.sending || s.finished) return;
    const wait = Math.max(0, (readyAt.get(owed.chat_id) ?? 0) - Date.now());
    s.timer = setTimeout(() => {
      s.timer = null;
      sendNow(s, owed, () => flush(s, owed));
    }, wait);
  }

  const send = (owed: OwedReply, text: string) => retry.untilDone(() => poster.post(owed, text), signal, log, 'sending an answer');

  async function sendArtifact(owed: OwedReply, virtual: string): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(await deps.files.resolveVirtual(owed.thread_id, virtual));
    } catch (err) {
      log.warn({ err, run_id: owed.run_id, artifact: virtual }, `${poster.name}: a presented file could not be read`);
      await send(owed, `${virtual} could not be read, so it is not attached.`);
      return;
    }
    await retry.untilDone(() => poster.sendFile(owed, path.basename(virtual), bytes), signal, log, 'sending a file').catch(async (err: unknown) => {
      if (signal.aborted) throw err;
      await send(owed, `${path.basename(virtual)} could not be sent: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  return {
    start(owed) {
      const { placeholder } = poster;
      if (placeholder === undefined) return;
      const s = streamOf(owed);
      if (s.sending || s.timer || s.latest !== '') return;
      s.latest = placeholder;
      // A run taken over keeps the message it has (and what it shows); a new one shows the placeholder.
      sendNow(s, owed, async () => {
        if ((await known(s, owed).catch(() => null)) !== null) s.shown = s.latest;
        else await flush(s, owed);
      });
    },

    progress(owed, text) {
      const s = streamOf(owed);
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
        const [first = '', ...rest] = splitText(finalText(answer), limit);
        const stream = s ?? streamOf(owed);
        const messageId = await known(stream, owed);
        if (messageId !== null) {
          if (first !== stream.shown) {
            await retry.untilDone(() => poster.edit(owed, messageId, first), signal, log, 'editing the answer').catch(async (err: unknown) => {
              if (signal.aborted) throw err;
              // It already shows this; anything else (the message is gone): send it anew.
              if (!poster.unchanged(err)) await send(owed, first);
            });
          }
        } else {
          await open(stream, owed, first, () => send(owed, first));
        }
        for (const piece of rest) await send(owed, piece);
        for (const artifact of answer.artifacts) await sendArtifact(owed, artifact);
      } catch (err) {
        // Refused for good (the user blocked the bot, the chat is gone): owing it longer helps nobody.
        if (signal.aborted || retry.isRetryable(err)) throw err;
        log.warn({ err, run_id: owed.run_id, chat_id: owed.chat_id }, `${poster.name}: an answer was refused; dropped`);
      } finally {
        streams.delete(owed.run_id);
      }
    },
  };
}
