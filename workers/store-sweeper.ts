// Removes the store's expired items every `store.ttl.sweep_interval_minutes`. Expired items
// already read as absent; the sweep gives their memory back. Every worker runs one, and a lease
// in Redis lets one of them sweep per interval.
import type { RedisClient } from '../src/store/redis.js';
import type { Logger } from 'pino';
import { keys } from '../src/store/keys.js';
import type { ItemStore } from '../src/store/store-items.js';

export interface StoreSweeper {
  /** One sweep now, if no other process holds this interval's lease; how many items went. */
  sweepOnce(): Promise<number>;
  stop(): void;
}

export function startStoreSweeper(redis: RedisClient, items: Pick<ItemStore, 'sweepExpired'>, intervalMs: number, holder: string, log: Logger): StoreSweeper {
  const sweepOnce = async () => {
    const leased = await redis.set(keys.storeSweepLease(), holder, 'PX', intervalMs, 'NX');
    if (leased !== 'OK') return 0;
    const removed = await items.sweepExpired();
    if (removed > 0) log.info({ removed }, 'store: expired items removed');
    return removed;
  };
  const tick = () => {
    sweepOnce().catch((err: unknown) => log.warn({ err }, 'store sweep failed; the next interval tries again'));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return { sweepOnce, stop: () => clearInterval(timer) };
}
