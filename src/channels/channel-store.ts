// A chat platform's shared state in Redis: the lease that lets one process in the deployment hold
// the platform's connection, its status for GET /api/channels, its update offset, the map from
// conversations to threads, the answers still owed, and the inbox of events not yet handled
// (platforms that push events: Slack, Feishu).
//
// The lease is a key holding the holder's fencing token (one INCR counter per platform, so no two
// holders share one), set with NX and a TTL and renewed by compare-and-set (extend-lock-1.lua).
// A holder that dies stops renewing, the key expires, and another process's next try takes it.
// A holder that stalls past its lease learns it at its next renewal or offset write, both checked
// against its token, and stops.
import type { RedisClient } from '../store/redis.js';
import { keys } from '../store/keys.js';
import { nowIso } from '../store/records.js';
import { requireScript, type ScriptCaller } from '../store/scripts.js';

/** The platforms Warren connects to. */
export const CHANNEL_NAMES = ['telegram', 'slack', 'feishu'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];
export const isChannelName = (name: string): name is ChannelName => (CHANNEL_NAMES as readonly string[]).includes(name);

/** What Redis knows of a platform's connection. */
export interface ChannelState {
  /** A process holds the lease and its last call to the platform succeeded. */
  connected: boolean;
  /** The process holding the lease (its instance id), if one does. */
  holder: string | null;
  last_error: string | null;
  updated_at: string | null;
}

/** Where a run's answer goes: enough for any holder to send it, including after a takeover. */
export interface OwedReply {
  thread_id: string;
  run_id: string;
  /** The chat, as the platform names it. */
  chat_id: string;
  /** The user's message the answer replies to. */
  reply_to: string | null;
}

export interface ChannelStore {
  /** Takes the platform's lease if no one holds it; the fencing token it is held with, or null. */
  acquire(channel: ChannelName, holder: string, leaseMs: number): Promise<string | null>;
  /** Renews the lease; false when it lapsed or another process holds it now. */
  renew(channel: ChannelName, token: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease up (if still held with `token`), so another process can take it at once. */
  release(channel: ChannelName, token: string): Promise<void>;
  /** Records a change of the connection's status (`holder` is cleared with `null`). */
  report(channel: ChannelName, fields: Partial<Pick<ChannelState, 'connected' | 'holder' | 'last_error'>>): Promise<void>;
  state(channel: ChannelName): Promise<ChannelState>;
  /** The next update to read (Telegram's `offset`), 0 before the first. */
  offset(channel: ChannelName): Promise<number>;
  /** Moves the offset forward; false when `token` no longer holds the lease (nothing written). */
  raiseOffset(channel: ChannelName, token: string, offset: number): Promise<boolean>;
  conversationThread(channel: ChannelName, conversation: string): Promise<string | null>;
  setConversationThread(channel: ChannelName, conversation: string, threadId: string): Promise<void>;
  /** Remembers an answer to send; kept until `settle`, so a takeover sends it if the holder dies. */
  owe(channel: ChannelName, reply: OwedReply): Promise<void>;
  owed(channel: ChannelName): Promise<OwedReply[]>;
  settle(channel: ChannelName, runId: string): Promise<void>;
  /** The platform's id of the message showing a run's answer (kept until `settle`), so a new holder edits it rather than sending another. */
  answerMessage(channel: ChannelName, runId: string): Promise<string | null>;
  setAnswerMessage(channel: ChannelName, runId: string, messageId: string): Promise<void>;
  /**
   * Puts an event in the platform's inbox unless its id was recorded in the last day (a
   * platform's retry); true when it was added.
   */
  recordEvent(channel: ChannelName, eventId: string, body: string): Promise<boolean>;
  /** Up to `count` inbox entries after `after` (an entry id; `0-0` for the oldest), oldest first. */
  inbox(channel: ChannelName, after: string, count: number): Promise<InboxEntry[]>;
  /** Removes a handled entry; false when `token` no longer holds the lease (nothing removed). */
  dropEvent(channel: ChannelName, token: string, id: string): Promise<boolean>;
}

/** An event waiting in a platform's inbox. */
export interface InboxEntry {
  id: string;
  body: string;
}

/** How long a recorded event id is remembered: Slack and Feishu redeliver for minutes or hours, not days. */
const EVENT_SEEN_SECONDS = 24 * 60 * 60;

type StreamReply = [string, string[]][];
const entriesOf = (reply: StreamReply | null): InboxEntry[] =>
  (reply ?? []).map(([id, fields]) => ({ id, body: fields[fields.indexOf('body') + 1] ?? '' }));

/**
 * Waits up to `blockMs` for inbox entries after `after`, on a connection of its own (a blocking
 * read holds its connection): an empty list when none came.
 */
export async function waitForInbox(blocking: RedisClient, channel: ChannelName, after: string, blockMs: number): Promise<InboxEntry[]> {
  const reply = (await blocking.xread('COUNT', 50, 'BLOCK', blockMs, 'STREAMS', keys.channelInbox(channel), after)) as [string, StreamReply][] | null;
  return entriesOf(reply?.[0]?.[1] ?? null);
}

const parseOwed = (json: string): OwedReply | null => {
  try {
    const value = JSON.parse(json) as Partial<OwedReply>;
    if (typeof value.thread_id !== 'string' || typeof value.run_id !== 'string' || typeof value.chat_id !== 'string') return null;
    return { thread_id: value.thread_id, run_id: value.run_id, chat_id: value.chat_id, reply_to: typeof value.reply_to === 'string' ? value.reply_to : null };
  } catch {
    // A field that does not parse cannot be sent anywhere; it is skipped, not fatal.
    return null;
  }
};

export function createChannelStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): ChannelStore {
  const extendLock = requireScript(scripts, 'extendLock');
  const releaseLock = requireScript(scripts, 'releaseLock');
  const raiseChannelOffset = requireScript(scripts, 'raiseChannelOffset');
  const recordChannelEvent = requireScript(scripts, 'recordChannelEvent');
  const dropChannelEvent = requireScript(scripts, 'dropChannelEvent');

  return {
    async acquire(channel, holder, leaseMs) {
      const token = String(await redis.incr(keys.channelFence(channel)));
      if ((await redis.set(keys.channelLease(channel), token, 'PX', leaseMs, 'NX')) !== 'OK') return null;
      await redis.hset(keys.channelState(channel), 'holder', holder, 'connected', '0', 'updated_at', nowIso());
      return token;
    },

    renew: async (channel, token, leaseMs) => (await extendLock([keys.channelLease(channel)], [token, leaseMs])) === 1,

    async release(channel, token) {
      await releaseLock([keys.channelLease(channel)], [token]);
    },

    async report(channel, fields) {
      const values: string[] = ['updated_at', nowIso()];
      if (fields.connected !== undefined) values.push('connected', fields.connected ? '1' : '0');
      if (fields.holder !== undefined) values.push('holder', fields.holder ?? '');
      if (fields.last_error !== undefined) values.push('last_error', fields.last_error ?? '');
      await redis.hset(keys.channelState(channel), ...values);
    },

    async state(channel) {
      const [hash, leaseTtl] = await Promise.all([redis.hgetall(keys.channelState(channel)), redis.pttl(keys.channelLease(channel))]);
      // A holder killed outright leaves its fields behind: without a live lease, nobody holds it.
      const held = leaseTtl > 0;
      return {
        connected: held && hash.connected === '1',
        holder: held && hash.holder ? hash.holder : null,
        last_error: hash.last_error || null,
        updated_at: hash.updated_at || null,
      };
    },

    offset: async (channel) => Number((await redis.hget(keys.channelState(channel), 'offset')) ?? 0),

    raiseOffset: async (channel, token, offset) =>
      (await raiseChannelOffset([keys.channelLease(channel), keys.channelState(channel)], [token, offset])) !== -1,

    conversationThread: async (channel, conversation) => redis.hget(keys.channelConversations(channel), conversation),

    async setConversationThread(channel, conversation, threadId) {
      await redis.hset(keys.channelConversations(channel), conversation, threadId);
    },

    async owe(channel, reply) {
      await redis.hset(keys.channelReplies(channel), reply.run_id, JSON.stringify(reply));
    },

    async owed(channel) {
      const all = await redis.hvals(keys.channelReplies(channel));
      return all.map(parseOwed).filter((r): r is OwedReply => r !== null);
    },

    async settle(channel, runId) {
      await redis.hdel(keys.channelReplies(channel), runId);
      await redis.hdel(keys.channelAnswerMessages(channel), runId);
    },

    answerMessage: async (channel, runId) => redis.hget(keys.channelAnswerMessages(channel), runId),

    async setAnswerMessage(channel, runId, messageId) {
      await redis.hset(keys.channelAnswerMessages(channel), runId, messageId);
    },

    recordEvent: async (channel, eventId, body) =>
      (await recordChannelEvent([keys.channelEventSeen(channel, eventId), keys.channelInbox(channel)], [EVENT_SEEN_SECONDS, body])) !== null,

    inbox: async (channel, after, count) => entriesOf((await redis.xrange(keys.channelInbox(channel), `(${after}`, '+', 'COUNT', count)) as StreamReply),

    dropEvent: async (channel, token, id) => (await dropChannelEvent([keys.channelLease(channel), keys.channelInbox(channel)], [token, id])) === 1,
  };
}
