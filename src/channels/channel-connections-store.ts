// What the UI's channel settings keep in Redis, per platform: the credentials an admin saved
// (runtime config: sealed secrets, and a version that workers compare), the one-time codes a
// user's browser mints, and the bindings those codes make between a chat account and a Warren
// user. The platform's name is each key's hash tag, so every script here stays on one slot.
import { randomUUID } from 'node:crypto';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { RedisClient } from '../store/redis.js';
import { keys } from '../store/keys.js';
import { requireScript, type ScriptCaller } from '../store/scripts.js';
import type { ChannelName } from './channel-store.js';

/** A platform's credentials saved from the UI; secret fields hold sealed values (channel-secrets.ts). */
export const RuntimeConfigRecordSchema = Type.Object({
  /** Changes with every save: a worker whose connection was built from another version rebuilds it. */
  version: Type.String(),
  updated_at: Type.String(),
  updated_by: Type.String(),
  values: Type.Record(Type.String(), Type.String()),
  /** Feishu only: `feishu` or `lark`, which open platform the app lives on. */
  brand: Type.Optional(Type.Union([Type.Literal('feishu'), Type.Literal('lark')])),
});
export type RuntimeConfigRecord = Static<typeof RuntimeConfigRecordSchema>;

/** A chat account bound to a Warren user by a connect code. */
export const ChannelConnectionRecordSchema = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  owner: Type.String(),
  /** The platform's id of the user who sent the code. */
  external_account_id: Type.String(),
  external_account_name: Type.Union([Type.String(), Type.Null()]),
  /** The chat the code was sent in. */
  workspace_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export type ChannelConnectionRecord = Static<typeof ChannelConnectionRecordSchema>;

export interface PendingCode {
  owner: string;
  created_at: string;
}

export interface ChannelConnectionsStore {
  runtimeConfig(channel: ChannelName): Promise<RuntimeConfigRecord | null>;
  /** Saves the platform's credentials; Telegram's update offset starts again (another bot counts its own). */
  saveRuntimeConfig(channel: ChannelName, record: RuntimeConfigRecord): Promise<void>;
  /** Forgets the platform's saved credentials and every binding made on it. */
  deleteRuntimeConfig(channel: ChannelName): Promise<boolean>;
  /** Mints `code` for `owner`; false when the owner already has `max` pending on the platform. */
  createCode(channel: ChannelName, owner: string, code: string, ttlMs: number, max: number): Promise<boolean>;
  /** Takes a code once: its owner, or null for a code that is unknown, used or expired. */
  consumeCode(channel: ChannelName, code: string): Promise<PendingCode | null>;
  /** Binds an account; the id of the binding it replaced, if any. */
  bind(channel: ChannelName, connection: ChannelConnectionRecord): Promise<string | null>;
  /** The binding of the platform's user id, if any. */
  connectionOf(channel: ChannelName, externalAccountId: string): Promise<ChannelConnectionRecord | null>;
  connections(channel: ChannelName): Promise<ChannelConnectionRecord[]>;
  /** Removes a binding that is `owner`'s (any binding when `owner` is null); the removed one, or null. */
  unbind(channel: ChannelName, id: string, owner: string | null): Promise<ChannelConnectionRecord | null>;
  /** The user's current Lark set-up flow, if one started in the last day. */
  larkGeneration(user: string): Promise<string | null>;
  /** Starts a new Lark set-up flow for the user (older ones are void from now on); its generation. */
  advanceLarkGeneration(user: string): Promise<string>;
}

/** How long a Lark set-up flow may stay open. */
const LARK_FLOW_SECONDS = 24 * 60 * 60;

function parse<S extends TSchema>(schema: S, raw: string | null): Static<S> | null {
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return Value.Check(schema, value) ? value : null;
  } catch {
    // A damaged entry reads as absent: the caller answers as if it were not there.
    return null;
  }
}

const PendingCodeSchema = Type.Object({ owner: Type.String(), created_at: Type.String() });

export function createChannelConnectionsStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): ChannelConnectionsStore {
  const createConnectCode = requireScript(scripts, 'createConnectCode');
  const bindChannelConnection = requireScript(scripts, 'bindChannelConnection');
  const unbindChannelConnection = requireScript(scripts, 'unbindChannelConnection');
  const connection = (raw: string | null) => parse(ChannelConnectionRecordSchema, raw);

  return {
    runtimeConfig: async (channel) => parse(RuntimeConfigRecordSchema, await redis.get(keys.channelRuntimeConfig(channel))),

    async saveRuntimeConfig(channel, record) {
      await redis.multi().set(keys.channelRuntimeConfig(channel), JSON.stringify(record)).hdel(keys.channelState(channel), 'offset').exec();
    },

    async deleteRuntimeConfig(channel) {
      const replies = await redis
        .multi()
        .del(keys.channelRuntimeConfig(channel))
        .del(keys.channelConnections(channel), keys.channelIdentities(channel))
        .hdel(keys.channelState(channel), 'offset')
        .exec();
      return replies?.[0]?.[1] === 1;
    },

    async createCode(channel, owner, code, ttlMs, max) {
      const value = JSON.stringify({ owner, created_at: new Date().toISOString() });
      const result = await createConnectCode([keys.channelConnectCodes(channel, owner), keys.channelConnectCode(channel, code)], [Date.now(), ttlMs, max, value, code]);
      return result === 1;
    },

    async consumeCode(channel, code) {
      const pending = parse(PendingCodeSchema, await redis.getdel(keys.channelConnectCode(channel, code)));
      if (pending) await redis.zrem(keys.channelConnectCodes(channel, pending.owner), code);
      return pending;
    },

    async bind(channel, record) {
      const previous = await bindChannelConnection([keys.channelConnections(channel), keys.channelIdentities(channel)], [record.external_account_id, record.id, JSON.stringify(record)]);
      return typeof previous === 'string' && previous !== record.id ? previous : null;
    },

    async connectionOf(channel, externalAccountId) {
      const id = await redis.hget(keys.channelIdentities(channel), externalAccountId);
      return id === null ? null : connection(await redis.hget(keys.channelConnections(channel), id));
    },

    async connections(channel) {
      const all = await redis.hvals(keys.channelConnections(channel));
      return all.map(connection).filter((c): c is ChannelConnectionRecord => c !== null);
    },

    async unbind(channel, id, owner) {
      const removed = await unbindChannelConnection([keys.channelConnections(channel), keys.channelIdentities(channel)], [id, owner ?? '']);
      return typeof removed === 'string' ? connection(removed) : null;
    },

    larkGeneration: (user) => redis.get(keys.larkFlowGeneration(user)),

    async advanceLarkGeneration(user) {
      const generation = randomUUID();
      await redis.set(keys.larkFlowGeneration(user), generation, 'EX', LARK_FLOW_SECONDS);
      return generation;
    },
  };
}
