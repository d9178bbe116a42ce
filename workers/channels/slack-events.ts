// Slack's events as a chat reads them (https://docs.slack.dev/apis/events-api): the
// `event_callback` bodies that Socket Mode and the Events API both deliver, whose `event` is a
// message to the bot: a `message` in a DM (`channel_type: im`), or an `app_mention` in a
// channel, whose leading mention of the bot is dropped. A conversation is a DM, or a thread of a
// channel (the thread's first message's `ts`); answers go in that thread. The bot's own
// messages, edits, deletions and joins are not conversations and are passed over.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { fileNameProblem } from '../../src/workspace/thread-files.js';
import { commandOf, type IncomingAttachment, type IncomingMessage } from './chat-messages.js';
import type { SlackApi } from './slack-api.js';

const SlackFileSchema = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  size: Type.Optional(Type.Integer()),
  /** `hosted` for a file Slack holds; `tombstone` (deleted) and `hidden_by_limit` carry no bytes. */
  mode: Type.Optional(Type.String()),
  url_private: Type.Optional(Type.String()),
  url_private_download: Type.Optional(Type.String()),
});

export const SlackMessageEventSchema = Type.Object({
  type: Type.String(),
  channel: Type.String(),
  channel_type: Type.Optional(Type.String()),
  user: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  ts: Type.String(),
  thread_ts: Type.Optional(Type.String()),
  subtype: Type.Optional(Type.String()),
  bot_id: Type.Optional(Type.String()),
  files: Type.Optional(Type.Array(SlackFileSchema)),
});
export type SlackMessageEvent = Static<typeof SlackMessageEventSchema>;

/** Subtypes that are still a user speaking: a message with files, a thread reply also sent to the channel. */
const SPOKEN_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

/** Slack escapes these three in message text. */
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The text without a leading mention of the bot (`<@U123> hello`, `<@U123|name> hello`). */
export function withoutMention(text: string, botUserId: string): string {
  const match = /^\s*<@([A-Z0-9]+)(?:\|[^>]*)?>\s*/.exec(text);
  return match && match[1] === botUserId ? text.slice(match[0].length) : text;
}

/** The event of an `event_callback` body, when it is a user's message to the bot; null otherwise. */
export function messageEventOf(body: unknown, botUserId: string): SlackMessageEvent | null {
  const event = (body as { event?: unknown } | null)?.event;
  if (!Value.Check(SlackMessageEventSchema, event)) return null;
  if (event.bot_id || !event.user || event.user === botUserId) return null;
  if (event.subtype !== undefined && !SPOKEN_SUBTYPES.has(event.subtype)) return null;
  // In a channel only a mention is for the bot (the `message` copy of it is passed over).
  if (event.type === 'app_mention') return event.channel_type === 'im' ? null : event;
  return event.type === 'message' && event.channel_type === 'im' ? event : null;
}

function attachmentsOf(api: SlackApi, event: SlackMessageEvent): IncomingAttachment[] {
  return (event.files ?? []).flatMap((file) => {
    const url = file.url_private_download ?? file.url_private;
    if (!url || (file.mode !== undefined && file.mode !== 'hosted' && file.mode !== 'snippet')) return [];
    const raw = (file.name ?? '').split(/[\\/]/).pop() ?? '';
    const filename = raw && !fileNameProblem(raw) ? raw : `file-${file.id}`;
    return [{ filename, size: file.size ?? null, download: (maxBytes: number, signal: AbortSignal) => api.download(url, maxBytes, signal) }];
  });
}

/** A message event as Warren reads it. */
export function incomingOf(api: SlackApi, event: SlackMessageEvent, botUserId: string): IncomingMessage {
  // A DM is one conversation; in a channel (or a thread of a DM) each thread is one.
  const inThread = event.channel_type !== 'im' || event.thread_ts !== undefined;
  const threadTs = event.thread_ts ?? event.ts;
  const text = unescape(withoutMention(event.text ?? '', botUserId)).trim();
  return {
    origin: {
      conversation: inThread ? `${event.channel}:${threadTs}` : event.channel,
      chatId: event.channel,
      messageId: event.ts,
      userId: event.user ?? '',
      replyTo: inThread ? threadTs : null,
    },
    command: commandOf(text),
    text,
    attachments: attachmentsOf(api, event),
  };
}
