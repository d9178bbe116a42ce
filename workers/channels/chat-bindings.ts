// A chat account bound to a Warren user: the user's browser minted a one-time code (POST
// /api/channels/{provider}/connect), the user sent it to the bot, and from then on that account's
// messages run as that user, in threads of their own. A platform started from credentials saved
// in the UI answers bound accounts only; a config.yaml platform answers the others as its `owner`.
import { randomUUID } from 'node:crypto';
import type { ChannelConnectionsStore, ChannelName } from '../../src/channels/channels.js';
import type { ChatBindings } from './chat-messages.js';

export interface ChatBindingsDeps {
  channel: ChannelName;
  store: Pick<ChannelConnectionsStore, 'consumeCode' | 'bind' | 'connectionOf'>;
  /** Who an account with no binding runs as; null: such accounts are not answered. */
  unboundOwner: string | null;
}

export function createChatBindings(deps: ChatBindingsDeps): ChatBindings {
  const { channel, store } = deps;
  return {
    async connect(origin, code) {
      const pending = await store.consumeCode(channel, code);
      if (pending === null) return "That connect code is not valid, was used already, or has expired. Get a new one in Warren's Settings › Channels.";
      await store.bind(channel, {
        id: `${channel}-${randomUUID()}`,
        provider: channel,
        owner: pending.owner,
        external_account_id: origin.userId,
        external_account_name: origin.userName ?? null,
        workspace_id: origin.chatId,
        created_at: new Date().toISOString(),
      });
      return `Connected. Your messages here now run as the Warren user ${pending.owner}.`;
    },

    async ownerOf(origin) {
      if (origin.userId === '') return deps.unboundOwner;
      return (await store.connectionOf(channel, origin.userId))?.owner ?? deps.unboundOwner;
    },
  };
}
