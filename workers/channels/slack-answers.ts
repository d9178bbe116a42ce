// How an answer reaches Slack (workers/channels/streamed-answers.ts): a message in the
// conversation's thread (or the DM itself), edited with chat.update as the answer grows, split
// at 4000 characters (Slack truncates long messages), files through Slack's upload flow.
import type { SlackApi } from './slack-api.js';
import type { ChatPoster } from './streamed-answers.js';

export const SLACK_TEXT_LIMIT = 4000;

export function slackPoster(api: SlackApi): ChatPoster {
  return {
    name: 'slack',
    textLimit: SLACK_TEXT_LIMIT,
    post: (owed, text) => api.postMessage(owed.chat_id, text, owed.reply_to),
    edit: (owed, ts, text) => api.update(owed.chat_id, ts, text),
    sendFile: (owed, filename, bytes) => api.uploadFile(owed.chat_id, owed.reply_to, filename, bytes),
    // chat.update takes an edit that changes nothing.
    unchanged: () => false,
  };
}
