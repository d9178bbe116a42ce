// Chat channels: Telegram, Slack and Feishu/Lark conversations that become runs on the normal queue.
// API side, here: `/api/channels` (status and restarts), Slack's and Feishu's event callbacks
// (slack-events.*, feishu-events.*), and the channel records in Redis (channel-store.ts: the
// chat-to-thread map, leases, the inbox of received events and the replies owed).
// Worker side: workers/channels/ holds each platform's connection under a lease, turns messages
// into runs and streams the answers back.
// This module is the feature's door: code outside src/channels/ imports only from here (the API's
// composition roots also reach its routes and services).
export { CHANNEL_NAMES, createChannelStore, isChannelName, waitForInbox } from './channel-store.js';
export type { ChannelName, ChannelStore, InboxEntry, OwedReply } from './channel-store.js';
export { createChannelConnectionsStore } from './channel-connections-store.js';
export type { ChannelConnectionRecord, ChannelConnectionsStore, RuntimeConfigRecord } from './channel-connections-store.js';
export { createSecretBox, SECRETS_KEY_VARIABLE } from './channel-secrets.js';
export type { SecretBox } from './channel-secrets.js';
export { CONNECT_COMMANDS, PROVIDERS, secretContext } from './channel-providers.js';
export { createLarkAccounts } from './lark-accounts.js';
