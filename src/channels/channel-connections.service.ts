// The Channels settings: which platforms can be connected and how, the credentials an admin
// saves for a platform (sealed in Redis; every worker hears of the change and the one holding
// the platform's lease runs it), the connect codes a user mints, and the chat accounts those
// codes bound. Bindings are each user's own; platforms are the deployment's, and config.yaml's
// show up as read-only connections.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ChannelsConfig } from '../config/app-config.schemas.js';
import { isAdmin, type Identity } from '../auth/identity.js';
import { AdminRequiredError } from '../auth/auth.errors.js';
import { nowIso } from '../store/records.js';
import type { ChannelConnectionsStore, RuntimeConfigRecord } from './channel-connections-store.js';
import { CONNECT_CODE_TTL_SECONDS, MASKED_VALUE, MAX_PENDING_CONNECT_CODES, PROVIDERS, secretContext } from './channel-providers.js';
import { SECRETS_KEY_VARIABLE, type SecretBox } from './channel-secrets.js';
import { CHANNEL_NAMES, isChannelName, type ChannelName, type ChannelState, type ChannelStore } from './channel-store.js';
import {
  ChannelConfigInvalidError,
  ChannelConnectCodesExhaustedError,
  ChannelConnectionNotFoundError,
  ChannelConnectionReadOnlyError,
  ChannelNotConfiguredError,
  ChannelNotFoundError,
  ChannelSecretsKeyMissingError,
} from './channels.errors.js';
import type { ChannelConnect, ChannelConnection, ChannelConnections, ChannelProvider, ChannelProviders } from './channel-connections.schemas.js';

export interface ChannelConnectionsDeps {
  config: ChannelsConfig;
  store: ChannelConnectionsStore;
  channels: Pick<ChannelStore, 'state'>;
  box: SecretBox;
  /** Tells every worker that a platform's saved credentials changed. */
  announce: (channel: ChannelName) => Promise<void>;
}

/** A platform's credentials as the deployment has them, without opening a secret. */
interface Deployed {
  source: 'runtime-config' | 'config.yaml' | null;
  /** Field → value as shown: text as is, a secret as `********`. */
  shown: Record<string, string>;
  runtime: RuntimeConfigRecord | null;
}

/** The fields config.yaml sets for a platform's credentials (a secret there is usually a `$NAME`). */
function configValues(config: ChannelsConfig, channel: ChannelName): Record<string, string | undefined> {
  if (channel === 'telegram') return { bot_token: config.telegram.bot_token, bot_username: config.telegram.bot_username };
  if (channel === 'slack') return { bot_token: config.slack.bot_token, app_token: config.slack.mode === 'socket' ? config.slack.app_token : 'events-mode' };
  return { app_id: config.feishu.app_id, app_secret: config.feishu.app_secret };
}

const BINDING_ID = /^(telegram|slack|feishu)-[0-9a-f-]{36}$/;
const deploymentId = (source: 'runtime-config' | 'config.yaml', channel: ChannelName) => `${source === 'config.yaml' ? 'config-yaml' : 'runtime'}-${channel}`;

export function createChannelConnectionsService(deps: ChannelConnectionsDeps) {
  const { store, config } = deps;

  const known = (provider: string): ChannelName => {
    if (!isChannelName(provider)) throw new ChannelNotFoundError(`Unknown channel provider "${provider}". Providers: ${CHANNEL_NAMES.join(', ')}.`);
    return provider;
  };

  async function deployed(channel: ChannelName): Promise<Deployed> {
    const runtime = await store.runtimeConfig(channel);
    const fields = PROVIDERS[channel].fields;
    const mask = (values: Record<string, string | undefined>) =>
      Object.fromEntries(fields.filter((f) => values[f.name]).map((f) => [f.name, f.type === 'password' ? MASKED_VALUE : (values[f.name] as string)]));
    if (runtime) return { source: 'runtime-config', shown: mask(runtime.values), runtime };
    if (!config[channel].enabled) return { source: null, shown: {}, runtime: null };
    const values = configValues(config, channel);
    // config.yaml's Telegram needs no bot_username to answer; only the deep link does.
    const required = fields.filter((f) => !(channel === 'telegram' && f.name === 'bot_username'));
    return { source: required.every((f) => values[f.name]) ? 'config.yaml' : null, shown: mask(values), runtime: null };
  }

  function unavailableReason(channel: ChannelName, dep: Deployed, state: ChannelState): string | null {
    const name = PROVIDERS[channel].display_name;
    if (dep.source === null) {
      return deps.box.available
        ? `Enter the required ${name} credentials to connect this channel.`
        : `${name} has no credentials, and ${SECRETS_KEY_VARIABLE} is not set on the server, so none can be saved here: set it, or configure channels.${channel} in config.yaml.`;
    }
    if (!state.connected) return `${name} channel is configured but is not running. Check the credentials and service logs.${state.last_error ? ` Last error: ${state.last_error}` : ''}`;
    return null;
  }

  /** Whether the platform answers a chat account with no binding as this user (config.yaml's `owner`). */
  const answersUnbound = (channel: ChannelName, dep: Deployed, user: string) => dep.source === 'config.yaml' && config[channel].owner === user;

  async function providerOf(channel: ChannelName, identity: Identity): Promise<ChannelProvider> {
    const [dep, state, bindings] = await Promise.all([deployed(channel), deps.channels.state(channel), store.connections(channel)]);
    const reason = unavailableReason(channel, dep, state);
    const bound = bindings.some((b) => b.owner === identity.user) || answersUnbound(channel, dep, identity.user);
    const meta = PROVIDERS[channel];
    return {
      provider: channel,
      display_name: meta.display_name,
      enabled: true,
      configured: dep.source !== null,
      connectable: dep.source !== null && reason === null,
      unavailable_reason: reason,
      auth_mode: meta.auth_mode,
      connection_status: bound && reason === null ? 'connected' : 'not_connected',
      credential_fields: meta.fields.map((f) => ({ ...f })),
      credential_values: dep.shown,
    };
  }

  /** The values to save: required ones present, no field the platform does not take, a masked secret kept as saved. */
  function sealedValues(channel: ChannelName, values: Record<string, string>, previous: RuntimeConfigRecord | null): Record<string, string> {
    const fields = PROVIDERS[channel].fields;
    const unknown = Object.keys(values).filter((name) => !fields.some((f) => f.name === name));
    if (unknown.length > 0) throw new ChannelConfigInvalidError(`${PROVIDERS[channel].display_name} takes no ${unknown.join(', ')}; its fields are ${fields.map((f) => f.name).join(', ')}.`);
    const sealed: Record<string, string> = {};
    const missing: string[] = [];
    for (const f of fields) {
      const value = (values[f.name] ?? '').trim();
      if (f.type === 'password' && value === MASKED_VALUE && previous?.values[f.name]) sealed[f.name] = previous.values[f.name] as string;
      else if (value === '' || value === MASKED_VALUE) missing.push(f.label);
      else sealed[f.name] = f.type === 'password' ? deps.box.seal(value, secretContext(channel, f.name)) : value;
    }
    if (missing.length > 0) throw new ChannelConfigInvalidError(`Missing required channel configuration: ${missing.join(', ')}`);
    return sealed;
  }

  async function deploymentConnection(channel: ChannelName): Promise<ChannelConnection | null> {
    const [dep, state] = await Promise.all([deployed(channel), deps.channels.state(channel)]);
    if (dep.source === null) return null;
    return {
      id: deploymentId(dep.source, channel),
      provider: channel,
      status: state.connected ? 'connected' : 'disconnected',
      external_account_id: dep.shown.bot_username ?? dep.shown.app_id ?? null,
      external_account_name: PROVIDERS[channel].display_name,
      workspace_id: null,
      workspace_name: null,
      scopes: [],
      metadata: { source: dep.source, read_only: dep.source === 'config.yaml', holder: state.holder, last_error: state.last_error, updated_at: dep.runtime?.updated_at ?? state.updated_at },
    };
  }

  async function removeRuntimeConfig(channel: ChannelName): Promise<void> {
    await store.deleteRuntimeConfig(channel);
    await deps.announce(channel);
  }

  return {
    async providers(identity: Identity): Promise<ChannelProviders> {
      return { enabled: true, providers: await Promise.all(CHANNEL_NAMES.map((channel) => providerOf(channel, identity))) };
    },

    async connections(identity: Identity): Promise<ChannelConnections> {
      const deployment = (await Promise.all(CHANNEL_NAMES.map(deploymentConnection))).filter((c): c is ChannelConnection => c !== null);
      const bindings = (await Promise.all(CHANNEL_NAMES.map((channel) => store.connections(channel)))).flat().filter((b) => b.owner === identity.user);
      const own: ChannelConnection[] = bindings.map((b) => ({
        id: b.id,
        provider: b.provider,
        status: 'connected',
        external_account_id: b.external_account_id,
        external_account_name: b.external_account_name,
        workspace_id: b.workspace_id,
        workspace_name: null,
        scopes: [],
        metadata: { source: 'binding', read_only: false, created_at: b.created_at },
      }));
      return { connections: [...deployment, ...own] };
    },

    async connect(identity: Identity, provider: string): Promise<ChannelConnect> {
      const channel = known(provider);
      const [dep, state] = await Promise.all([deployed(channel), deps.channels.state(channel)]);
      const reason = unavailableReason(channel, dep, state);
      if (reason !== null) throw new ChannelNotConfiguredError(reason);
      const code = randomBytes(16).toString('base64url');
      if (!(await store.createCode(channel, identity.user, code, CONNECT_CODE_TTL_SECONDS * 1000, MAX_PENDING_CONNECT_CODES))) {
        throw new ChannelConnectCodesExhaustedError('Too many pending channel connection codes. Wait for existing codes to expire or use one of them.');
      }
      const meta = PROVIDERS[channel];
      const username = channel === 'telegram' ? dep.shown.bot_username : undefined;
      return {
        provider: channel,
        mode: meta.auth_mode,
        url: username ? `https://t.me/${username}?start=${code}` : null,
        code,
        instruction: channel === 'telegram' ? `Send /start ${code} to the Warren Telegram bot.` : `Send /connect ${code} to the Warren ${meta.display_name} bot.`,
        expires_in: CONNECT_CODE_TTL_SECONDS,
      };
    },

    async disconnect(identity: Identity, id: string): Promise<void> {
      const deployment = /^(config-yaml|runtime)-(telegram|slack|feishu)$/.exec(id);
      if (deployment) {
        const channel = deployment[2] as ChannelName;
        const dep = await deployed(channel);
        if (dep.source === 'config.yaml' && deployment[1] === 'config-yaml') {
          throw new ChannelConnectionReadOnlyError(`The ${PROVIDERS[channel].display_name} connection comes from config.yaml (channels.${channel}); change or disable it there.`);
        }
        if (dep.source === 'runtime-config' && deployment[1] === 'runtime') {
          if (!isAdmin(identity)) throw new AdminRequiredError('Admin privileges required to manage channel runtime credentials.');
          await removeRuntimeConfig(channel);
          return;
        }
      }
      const channel = BINDING_ID.exec(id)?.[1] as ChannelName | undefined;
      if (channel === undefined || (await store.unbind(channel, id, identity.user)) === null) throw new ChannelConnectionNotFoundError('Channel connection not found');
    },

    /** Saves a platform's credentials; `brand` (Feishu) names Lark's open platform or Feishu's, else the saved one stays. */
    async saveRuntimeConfig(identity: Identity, provider: string, values: Record<string, string>, brand?: 'feishu' | 'lark'): Promise<ChannelProvider> {
      const channel = known(provider);
      if (!deps.box.available) throw new ChannelSecretsKeyMissingError(`${SECRETS_KEY_VARIABLE} is not set on the server, so ${PROVIDERS[channel].display_name} credentials cannot be encrypted at rest and are not saved. Set it (32 bytes: 64 hex digits or base64) on every API and worker process, or configure channels.${channel} in config.yaml.`);
      const previous = await store.runtimeConfig(channel);
      const record: RuntimeConfigRecord = { version: randomUUID(), updated_at: nowIso(), updated_by: identity.user, values: sealedValues(channel, values, previous), ...((brand ?? previous?.brand) ? { brand: brand ?? previous?.brand } : {}) };
      await store.saveRuntimeConfig(channel, record);
      await deps.announce(channel);
      return providerOf(channel, identity);
    },

    async deleteRuntimeConfig(identity: Identity, provider: string): Promise<ChannelProvider> {
      const channel = known(provider);
      await removeRuntimeConfig(channel);
      return providerOf(channel, identity);
    },
  };
}

export type ChannelConnectionsService = ReturnType<typeof createChannelConnectionsService>;
