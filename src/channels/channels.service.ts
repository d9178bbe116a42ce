// The chat platforms' status, as config.yaml and Redis know it, and restarting one: the worker
// holding its connection hears the request over pub/sub, drops the connection and takes the
// lease again (or another worker does).
import type { ChannelsConfig } from '../config/app-config.schemas.js';
import { CHANNEL_NAMES, isChannelName, type ChannelName, type ChannelStore } from './channel-store.js';
import { ChannelNotEnabledError, ChannelNotFoundError } from './channels.errors.js';
import type { ChannelList, ChannelRestartReply, ChannelStatus } from './channels.schemas.js';

export interface ChannelsServiceDeps {
  config: ChannelsConfig;
  channels: Pick<ChannelStore, 'state'>;
  /** Tells the holder of a platform's connection to restart it. */
  requestRestart: (name: ChannelName) => Promise<void>;
}

export function createChannelsService(deps: ChannelsServiceDeps) {
  const known = (name: string): ChannelName => {
    if (!isChannelName(name)) throw new ChannelNotFoundError(`No channel named "${name}". Channels: ${CHANNEL_NAMES.join(', ')}.`);
    return name;
  };

  async function status(name: ChannelName): Promise<ChannelStatus> {
    return { name, enabled: deps.config[name].enabled, ...(await deps.channels.state(name)) };
  }

  return {
    async list(): Promise<ChannelList> {
      return { channels: await Promise.all(CHANNEL_NAMES.map(status)) };
    },

    async restart(raw: string): Promise<ChannelRestartReply> {
      const name = known(raw);
      if (!deps.config[name].enabled) throw new ChannelNotEnabledError(`Channel ${name} is not enabled: set channels.${name}.enabled in config.yaml.`);
      await deps.requestRestart(name);
      const { holder } = await status(name);
      const message = holder ? `Asked ${holder} to reconnect ${name}.` : `No worker holds ${name} right now; the next one to take its lease connects it.`;
      return { name, restarting: holder !== null, message };
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
