// How an answer reaches a Feishu chat: an interactive card, sent in reply to the user's message
// when the run starts and updated as the answer grows, at most once per `edit_interval_ms` per
// card (Feishu takes up to 5 updates a second of one message); when the run ends, the final
// text (more cards when it is longer than one card holds) and each presented file, uploaded and
// sent as a file message. The card's message id is kept in Redis until the answer is sent, so a
// worker that takes the connection over updates the same card. Updates along the way are best
// effort; the final answer is retried until it gets through.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ChannelStore, OwedReply } from '../../src/store/channels.js';
import type { ThreadFiles } from '../../src/store/thread-files.js';
import { FeishuError, type FeishuApi } from './feishu-api.js';
import { untilDone } from './feishu-retry.js';
import type { AnswerSink } from './run-answers.js';
import { finalText, splitText } from './telegram-answers.js';

/** Characters of text in one card: its JSON must stay under Feishu's 30 KB, CJK text included. */
export const FEISHU_CARD_TEXT_LIMIT = 8000;
/** What a card shows before the first words arrive. */
export const THINKING = '…';

interface Card {
  /** The card's message id, once it is sent (or found in Redis). */
  id: Promise<string> | null;
  shown: string;
  latest: string;
  timer: NodeJS.Timeout | null;
  sending: Promise<void> | null;
  finished: boolean;
  /** When the next update may go. */
  readyAt: number;
}

export interface FeishuAnswersDeps {
  api: FeishuApi;
  store: Pick<ChannelStore, 'answerMessage' | 'setAnswerMessage'>;
  files: Pick<ThreadFiles, 'resolveVirtual'>;
  editIntervalMs: number;
  /** Aborts when the connection is dropped: retries stop, the answer stays owed. */
  signal: AbortSignal;
  log: Logger;
}

export interface FeishuAnswers extends AnswerSink {
  /** Sends the run's card at once (showing that an answer is coming). */
  open(owed: OwedReply): Promise<void>;
}

const limited = (text: string) => (text.length > FEISHU_CARD_TEXT_LIMIT ? `${text.slice(0, FEISHU_CARD_TEXT_LIMIT - 1)}…` : text);
const gone = (err: unknown) => err instanceof FeishuError && !err.transient;

export function createFeishuAnswers(deps: FeishuAnswersDeps): FeishuAnswers {
  const { api, log, signal } = deps;
  const cards = new Map<string, Card>();

  const cardOf = (owed: OwedReply): Card => {
    let card = cards.get(owed.run_id);
    if (!card) cards.set(owed.run_id, (card = { id: null, shown: '', latest: '', timer: null, sending: null, finished: false, readyAt: 0 }));
    return card;
  };

  const replyTo = (owed: OwedReply): string => {
    if (owed.reply_to === null) throw new FeishuError('reply', 400, 0, 'the answer has no message to reply to');
    return owed.reply_to;
  };

  /** The run's card: the one Redis knows, or a new one showing `text`. */
  function cardId(owed: OwedReply, card: Card, text: string): Promise<string> {
    card.id ??= (async () => {
      const known = await deps.store.answerMessage('feishu', owed.run_id);
      if (known) return known;
      const id = await untilDone(() => api.replyCard(replyTo(owed), text), signal, log, 'sending the answer card');
      card.shown = text;
      await deps.store.setAnswerMessage('feishu', owed.run_id, id);
      return id;
    })().catch((err: unknown) => {
      card.id = null;
      throw err;
    });
    return card.id;
  }

  async function update(owed: OwedReply, card: Card): Promise<void> {
    const text = limited(card.latest);
    if (text === card.shown) return;
    card.readyAt = Date.now() + deps.editIntervalMs;
    try {
      const id = await cardId(owed, card, text);
      if (text !== card.shown) await api.updateCard(id, text);
      card.shown = text;
    } catch (err) {
      log.debug({ err, run_id: owed.run_id }, 'feishu: a card update failed; the final answer follows anyway');
    }
  }

  function schedule(owed: OwedReply, card: Card): void {
    if (card.timer || card.sending || card.finished) return;
    card.timer = setTimeout(() => {
      card.timer = null;
      card.sending = update(owed, card).finally(() => {
        card.sending = null;
        if (limited(card.latest) !== card.shown) schedule(owed, card);
      });
    }, Math.max(0, card.readyAt - Date.now()));
  }

  const replyCard = (owed: OwedReply, text: string) => untilDone(() => api.replyCard(replyTo(owed), text), signal, log, 'sending an answer');

  async function sendArtifact(owed: OwedReply, virtual: string): Promise<void> {
    const name = path.basename(virtual);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(await deps.files.resolveVirtual(owed.thread_id, virtual));
    } catch (err) {
      log.warn({ err, run_id: owed.run_id, artifact: virtual }, 'feishu: a presented file could not be read');
      await untilDone(() => api.replyText(replyTo(owed), `${virtual} could not be read, so it is not attached.`), signal, log, 'replying');
      return;
    }
    await untilDone(() => api.replyFile(replyTo(owed), name, bytes), signal, log, 'sending a file').catch(async (err: unknown) => {
      if (signal.aborted || !gone(err)) throw err;
      await untilDone(() => api.replyText(replyTo(owed), `${name} could not be sent: ${(err as Error).message}`), signal, log, 'replying');
    });
  }

  return {
    async open(owed) {
      const card = cardOf(owed);
      await cardId(owed, card, THINKING).catch((err: unknown) => log.debug({ err, run_id: owed.run_id }, 'feishu: the answer card could not be sent yet'));
    },

    progress(owed, text) {
      const card = cardOf(owed);
      card.latest = text;
      schedule(owed, card);
    },

    async finish(owed, answer) {
      const card = cardOf(owed);
      card.finished = true;
      if (card.timer) clearTimeout(card.timer);
      await card.sending;
      try {
        const [first = '', ...rest] = splitText(finalText(answer), FEISHU_CARD_TEXT_LIMIT);
        const id = await cardId(owed, card, first);
        if (first !== card.shown) {
          await untilDone(() => api.updateCard(id, first), signal, log, 'updating the answer card').catch(async (err: unknown) => {
            // The card is gone (recalled, too old to update): the answer comes as a new one.
            if (signal.aborted || !gone(err)) throw err;
            await replyCard(owed, first);
          });
        }
        for (const piece of rest) await replyCard(owed, piece);
        for (const artifact of answer.artifacts) await sendArtifact(owed, artifact);
      } catch (err) {
        // Refused for good (the chat is gone, the bot was removed): owing it longer helps nobody.
        if (signal.aborted || !gone(err)) throw err;
        log.warn({ err, run_id: owed.run_id, chat_id: owed.chat_id }, 'feishu: an answer was refused; dropped');
      } finally {
        cards.delete(owed.run_id);
      }
    },
  };
}
