// Control messages over pub/sub: cancel requests (runs and sub-agent tasks), configuration
// changes and chat-channel restarts. Pub/sub cannot replay, which is fine here: a run's cancel is also recorded on the
// run, and workers re-read it; a task that misses its cancel ends at its own timeout.
import type { RedisClient } from '../store/redis.js';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from '../store/keys.js';

export const CancelMessageSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  action: Type.Union([Type.Literal('interrupt'), Type.Literal('rollback')]),
});
export type CancelMessage = Static<typeof CancelMessageSchema>;

/** Stops one sub-agent task, wherever it runs: its parent run timed out waiting, or stopped. */
export const TaskCancelMessageSchema = Type.Object({
  task_job_id: Type.String(),
});
export type TaskCancelMessage = Static<typeof TaskCancelMessageSchema>;

export const ConfigChangedSchema = Type.Object({
  what: Type.Union([Type.Literal('config'), Type.Literal('extensions')]),
});
export type ConfigChanged = Static<typeof ConfigChangedSchema>;

/** Restart a chat platform's connection: its holder drops it and takes the lease again. */
export const ChannelRestartSchema = Type.Object({
  channel: Type.String(),
});
export type ChannelRestart = Static<typeof ChannelRestartSchema>;

export async function publishChannelRestart(redis: RedisClient, message: ChannelRestart): Promise<void> {
  await redis.publish(keys.channelRestartChannel(), JSON.stringify(message));
}

/** A platform's credentials saved from the UI changed: every worker rebuilds that platform's connection. */
export const ChannelConfigChangedSchema = Type.Object({
  channel: Type.String(),
});
export type ChannelConfigChanged = Static<typeof ChannelConfigChangedSchema>;

export async function publishChannelConfigChanged(redis: RedisClient, message: ChannelConfigChanged): Promise<void> {
  await redis.publish(keys.channelConfigChannel(), JSON.stringify(message));
}

export async function publishCancel(redis: RedisClient, message: CancelMessage): Promise<void> {
  await redis.publish(keys.cancelChannel(), JSON.stringify(message));
}

export async function publishTaskCancel(redis: RedisClient, message: TaskCancelMessage): Promise<void> {
  await redis.publish(keys.taskCancelChannel(), JSON.stringify(message));
}

export async function publishConfigChanged(redis: RedisClient, message: ConfigChanged): Promise<void> {
  await redis.publish(keys.configChangedChannel(), JSON.stringify(message));
}

export interface ControlHandlers {
  onCancel?: (message: CancelMessage) => void;
  onTaskCancel?: (message: TaskCancelMessage) => void;
  onConfigChanged?: (message: ConfigChanged) => void;
  onChannelRestart?: (message: ChannelRestart) => void;
  onChannelConfigChanged?: (message: ChannelConfigChanged) => void;
}

/**
 * Subscribes `subscriber` (a dedicated connection) to the control channels. A message that does
 * not match its schema (another release sent it) is logged and skipped.
 */
export async function subscribeControl(subscriber: RedisClient, handlers: ControlHandlers, log: Logger): Promise<void> {
  const channels: string[] = [];
  if (handlers.onCancel) channels.push(keys.cancelChannel());
  if (handlers.onTaskCancel) channels.push(keys.taskCancelChannel());
  if (handlers.onConfigChanged) channels.push(keys.configChangedChannel());
  if (handlers.onChannelRestart) channels.push(keys.channelRestartChannel());
  if (handlers.onChannelConfigChanged) channels.push(keys.channelConfigChannel());
  subscriber.on('message', (channel: string, payload: string) => {
    // The connection may carry other subscriptions too: those are not ours to judge.
    if (!channels.includes(channel)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (err) {
      log.warn({ err, channel }, 'control message is not JSON; skipped');
      return;
    }
    if (channel === keys.cancelChannel() && Value.Check(CancelMessageSchema, parsed)) handlers.onCancel?.(parsed);
    else if (channel === keys.taskCancelChannel() && Value.Check(TaskCancelMessageSchema, parsed)) handlers.onTaskCancel?.(parsed);
    else if (channel === keys.configChangedChannel() && Value.Check(ConfigChangedSchema, parsed)) handlers.onConfigChanged?.(parsed);
    else if (channel === keys.channelRestartChannel() && Value.Check(ChannelRestartSchema, parsed)) handlers.onChannelRestart?.(parsed);
    else if (channel === keys.channelConfigChannel() && Value.Check(ChannelConfigChangedSchema, parsed)) handlers.onChannelConfigChanged?.(parsed);
    else log.warn({ channel }, 'control message does not match its schema; skipped');
  });
  // ioredis re-subscribes by itself after a reconnect.
  if (channels.length > 0) await subscriber.subscribe(...channels);
}
