// Control messages over pub/sub: cancel requests and configuration changes. Pub/sub cannot
// replay, which is fine here: a cancel is also recorded on the run, and workers re-read it.
import type { Redis } from 'ioredis';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from '../store/keys.js';

export const CancelMessageSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  action: Type.Union([Type.Literal('interrupt'), Type.Literal('rollback')]),
});
export type CancelMessage = Static<typeof CancelMessageSchema>;

export const ConfigChangedSchema = Type.Object({
  what: Type.Union([Type.Literal('config'), Type.Literal('extensions')]),
});
export type ConfigChanged = Static<typeof ConfigChangedSchema>;

export async function publishCancel(redis: Redis, message: CancelMessage): Promise<void> {
  await redis.publish(keys.cancelChannel(), JSON.stringify(message));
}

export async function publishConfigChanged(redis: Redis, message: ConfigChanged): Promise<void> {
  await redis.publish(keys.configChangedChannel(), JSON.stringify(message));
}

export interface ControlHandlers {
  onCancel?: (message: CancelMessage) => void;
  onConfigChanged?: (message: ConfigChanged) => void;
}

/** Subscribes `subscriber` (a dedicated connection) to the control channels. */
export async function subscribeControl(subscriber: Redis, handlers: ControlHandlers): Promise<void> {
  const channels: string[] = [];
  if (handlers.onCancel) channels.push(keys.cancelChannel());
  if (handlers.onConfigChanged) channels.push(keys.configChangedChannel());
  subscriber.on('message', (channel: string, payload: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (channel === keys.cancelChannel() && Value.Check(CancelMessageSchema, parsed)) handlers.onCancel?.(parsed);
    else if (channel === keys.configChangedChannel() && Value.Check(ConfigChangedSchema, parsed)) handlers.onConfigChanged?.(parsed);
  });
  // ioredis re-subscribes by itself after a reconnect.
  if (channels.length > 0) await subscriber.subscribe(...channels);
}
