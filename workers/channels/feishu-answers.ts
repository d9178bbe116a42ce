// How an answer reaches a Feishu chat (workers/channels/streamed-answers.ts): an interactive
// card, sent in reply to the user's message as the run starts (showing "…") and updated as the
// answer grows (Feishu takes up to 5 updates a second of one message); the final text in more
// cards when it is longer than one card holds; presented files uploaded and sent as file
// messages. Feishu takes an update that changes nothing.
import { FeishuError, type FeishuApi } from './feishu-api.js';
import type { ChatPoster } from './streamed-answers.js';

/** Characters of text in one card: its JSON must stay under Feishu's 30 KB, CJK text included. */
export const FEISHU_CARD_TEXT_LIMIT = 8000;
/** What a card shows before the first words arrive. */
export const THINKING = '…';

const replyTo = (replyTo: string | null): string => {
  if (replyTo === null) throw new FeishuError('reply', 400, 0, 'the answer has no message to reply to');
  return replyTo;
};

export function feishuPoster(api: FeishuApi): ChatPoster {
  return {
    name: 'feishu',
    textLimit: FEISHU_CARD_TEXT_LIMIT,
    placeholder: THINKING,
    post: (owed, text) => api.replyCard(replyTo(owed.reply_to), text),
    edit: (_owed, messageId, text) => api.updateCard(messageId, text),
    sendFile: (owed, filename, bytes) => api.replyFile(replyTo(owed.reply_to), filename, bytes),
    unchanged: () => false,
  };
}
