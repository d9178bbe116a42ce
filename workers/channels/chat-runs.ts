// What a chat message does in Warren, whatever the platform: a conversation (a chat, or a
// thread of one) is a Warren thread, found in Redis; a message starts a run of the channel's
// assistant on the normal queue (any worker runs it), queued behind the thread's running run
// rather than refused; the commands make a fresh thread, tell the status, or stop the run.
import { randomUUID } from 'node:crypto';
import type { RunAdmission } from '../../src/admission/admit-run.js';
import { actingFor, ANONYMOUS_USER } from '../../src/auth/identity.js';
import { signalCancel, type CancelDeps } from '../../src/admission/cancel-run.js';
import { nameUuid } from '../../src/admission/tick-ids.js';
import type { ChannelName, ChannelStore, OwedReply } from '../../src/channels/channels.js';
import type { Stores } from '../../src/stores.js';

export interface ChatRunsDeps extends CancelDeps {
  channel: ChannelName;
  stores: Pick<Stores, 'runs' | 'threads' | 'channels'>;
  admission: Pick<RunAdmission, 'admit'>;
  assistantId: string;
  recursionLimit: number;
  /** The Warren user whose threads the channel's conversations are (config `owner`); the anonymous user by default. */
  owner?: string;
}

/** Where a message came from, as the platform names it. */
export interface ChatOrigin {
  /** The conversation that is one thread: the chat id, or chat and thread for platforms with threads. */
  conversation: string;
  chatId: string;
  /** The message, for replies (and, with the chat, the run's id: a message read twice starts one run). */
  messageId: string;
  userId: string;
  /** What the answer replies to, when not the message itself (Slack: the thread's first message; null: none). */
  replyTo?: string | null;
  /** The sender's name on the platform (Telegram's @username), when it tells. */
  userName?: string;
  /** The Warren user the sender's account is bound to (a connect code); absent: the channel's owner. */
  owner?: string;
}

export const CHAT_COMMANDS = {
  '/new': 'start a new conversation (a fresh thread)',
  '/status': 'show the thread and whether a run is going',
  '/stop': 'stop the running answer',
  '/help': 'list the commands',
} as const;

export const helpText = () =>
  ['Send a message (and files) and I answer. Commands:', ...Object.entries(CHAT_COMMANDS).map(([name, what]) => `${name} — ${what}`)].join('\n');

export function createChatRuns(deps: ChatRunsDeps) {
  const { channel } = deps;
  const owner = deps.owner ?? ANONYMOUS_USER;
  const { runs, threads, channels } = deps.stores;

  const ownerOf = (origin: ChatOrigin) => origin.owner ?? owner;
  // A bound account's conversation is its owner's own thread: in a group chat, or after the
  // account moves to another owner, nobody writes into a thread someone else owns.
  const conversationKey = (origin: ChatOrigin) => (ownerOf(origin) === owner ? origin.conversation : `${origin.conversation}|owner:${ownerOf(origin)}`);

  async function freshThread(origin: ChatOrigin): Promise<string> {
    const threadId = randomUUID();
    // The metadata finds a chat's threads (POST /threads/search).
    await threads.create({ threadId, metadata: { channel, chat_id: origin.chatId, conversation: origin.conversation }, ifExists: 'do_nothing', owner: ownerOf(origin) });
    await channels.setConversationThread(channel, conversationKey(origin), threadId);
    return threadId;
  }

  return {
    /** The conversation's thread, made on its first message. */
    async threadFor(origin: ChatOrigin): Promise<string> {
      return (await channels.conversationThread(channel, conversationKey(origin))) ?? freshThread(origin);
    },

    /** `/new`: later messages go to a fresh thread; the old one stays as it was. */
    newThread: freshThread,

    /**
     * Starts the message's run and records the answer as owed, so that whoever holds the
     * connection sends it. A message read twice (its offset not saved before a crash) names the
     * same run, which is then not started again.
     */
    async start(origin: ChatOrigin, threadId: string, text: string): Promise<OwedReply> {
      const runId = nameUuid(`channel-run:${channel}:${origin.chatId}:${origin.messageId}`);
      const { run } = await deps.admission.admit(
        threadId,
        {
          assistant_id: deps.assistantId,
          input: { messages: [{ role: 'user', content: text }] },
          stream_mode: ['values', 'messages-tuple'],
          // A message that arrives while the thread is busy waits its turn.
          multitask_strategy: 'enqueue',
          if_not_exists: 'create',
          on_disconnect: 'continue',
          metadata: { channel, chat_id: origin.chatId, message_id: origin.messageId, user_id: origin.userId },
        },
        actingFor(ownerOf(origin)),
        { runId, defaultRecursionLimit: deps.recursionLimit },
      );
      const owed: OwedReply = { thread_id: run.thread_id, run_id: run.run_id, chat_id: origin.chatId, reply_to: origin.replyTo === undefined ? origin.messageId : origin.replyTo };
      await channels.owe(channel, owed);
      return owed;
    },

    /** `/stop`: cancels the thread's running run; what it wrote so far is still sent. */
    async stop(threadId: string): Promise<string> {
      const active = await runs.active(threadId);
      if (!active) return 'Nothing is running.';
      const result = await signalCancel(deps, threadId, active, 'interrupt');
      return result === 'signalled' || result === 'cancelled' ? 'Stopped.' : 'Nothing is running.';
    },

    async status(threadId: string): Promise<string> {
      const inflight = await runs.inflight(threadId);
      const running = inflight.find((r) => r.status === 'running');
      const waiting = inflight.length - (running ? 1 : 0);
      const lines = [`Thread ${threadId}.`, running ? `Answering (run ${running.run_id}).` : 'Idle.'];
      if (waiting > 0) lines.push(`${waiting} message${waiting === 1 ? '' : 's'} waiting.`);
      return lines.join(' ');
    },
  };
}

export type ChatRuns = ReturnType<typeof createChatRuns>;
