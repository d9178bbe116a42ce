// The chat platforms as DeerFlow's Channels settings show them: each one's name, how a user
// connects a chat account (Telegram's deep link, a code sent to the bot elsewhere) and the
// credentials an admin enters for it. Shared by the API (the settings routes) and the workers
// (which read the same credentials to run the platform).
import type { ChannelName } from './channel-store.js';

export interface CredentialField {
  name: string;
  label: string;
  /** `password` values are sealed at rest and masked on every read. */
  type: 'text' | 'password';
  required: boolean;
}

export interface ProviderMeta {
  display_name: string;
  /** `deep_link`: the connect answer carries a link that opens the bot with the code; `binding_code`: the user sends `/connect <code>`. */
  auth_mode: 'deep_link' | 'binding_code';
  fields: readonly CredentialField[];
}

const field = (name: string, label: string, type: CredentialField['type']): CredentialField => ({ name, label, type, required: true });

export const PROVIDERS: Readonly<Record<ChannelName, ProviderMeta>> = {
  telegram: { display_name: 'Telegram', auth_mode: 'deep_link', fields: [field('bot_token', 'Bot token', 'password'), field('bot_username', 'Bot username', 'text')] },
  slack: { display_name: 'Slack', auth_mode: 'binding_code', fields: [field('bot_token', 'Bot token', 'password'), field('app_token', 'App token', 'password')] },
  feishu: { display_name: 'Feishu', auth_mode: 'binding_code', fields: [field('app_id', 'App ID', 'text'), field('app_secret', 'App secret', 'password')] },
};

/** What a masked secret reads as; sent back unchanged, it keeps the saved value. */
export const MASKED_VALUE = '********';

/** The associated data a platform's sealed field is bound to. */
export const secretContext = (channel: ChannelName, name: string) => `${channel}.${name}`;

/** How long a connect code lives, and how many one user may have pending per platform. */
export const CONNECT_CODE_TTL_SECONDS = 600;
export const MAX_PENDING_CONNECT_CODES = 5;

/** The command a chat user sends with their code (Telegram's deep link sends `/start <code>`). */
export const CONNECT_COMMANDS = ['start', 'connect'] as const;
