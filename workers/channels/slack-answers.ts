// How an answer reaches Slack (workers/channels/streamed-answers.ts): a message in the
// conversation's thread (or the DM itself), in Slack's mrkdwn, edited with chat.update as the
// answer grows, split at 4000 characters (Slack truncates long messages), files through Slack's
// upload flow.
import type { SlackApi } from './slack-api.js';
import type { ChatPoster } from './streamed-answers.js';

export const SLACK_TEXT_LIMIT = 4000;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Prose (no code) in mrkdwn: headings and bold as `*bold*`, strike as `~strike~`, links as `<url|text>`. */
const prose = (text: string) =>
  escape(text)
    .replace(/^&gt; /gm, '> ')
    .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm, '*$1*')
    .replace(/\*\*(?=\S)(.+?)\*\*/g, '*$1*')
    .replace(/__(?=\S)(.+?)__/g, '*$1*')
    .replace(/~~(?=\S)(.+?)~~/g, '~$1~')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, '<$2|$1>');

/**
 * Markdown as the agent writes it, in Slack's mrkdwn: `&`, `<` and `>` escaped (Slack reads
 * `<…>` as a link or a mention), the marks that differ rewritten, code spans and blocks as they are.
 */
export function slackText(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((part, i) => (i % 2 === 1 ? escape(part) : prose(part)))
    .join('');
}

export function slackPoster(api: SlackApi): ChatPoster {
  return {
    name: 'slack',
    textLimit: SLACK_TEXT_LIMIT,
    post: (owed, text) => api.postMessage(owed.chat_id, slackText(text), owed.reply_to),
    edit: (owed, ts, text) => api.update(owed.chat_id, ts, slackText(text)),
    sendFile: (owed, filename, bytes) => api.uploadFile(owed.chat_id, owed.reply_to, filename, bytes),
    // chat.update takes an edit that changes nothing.
    unchanged: () => false,
  };
}
