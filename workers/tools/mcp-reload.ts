// Reloads a worker's MCP tools when the gateway announces a change to extensions_config.json.
// Pub/sub cannot replay: a worker that was disconnected during a change keeps its tools until
// the next announcement (ioredis re-subscribes by itself after a reconnect).
import type { RedisClient } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import { subscribeControl } from '../../src/queue/control.js';
import type { McpToolset } from './mcp-tools.js';

/** Subscribes `subscriber` (a dedicated subscriber connection the caller owns and closes). */
export async function watchMcpConfig(subscriber: RedisClient, toolset: Pick<McpToolset, 'reload'>, log: Logger): Promise<void> {
  await subscribeControl(subscriber, {
    onConfigChanged: (message) => {
      if (message.what !== 'extensions') return;
      log.info('extensions config changed; reloading MCP tools');
      // reload() never rejects, and bursts of announcements join one pending reload.
      void toolset.reload();
    },
  }, log);
}
