// OwnerIndex: one sorted set per user and kind of record, so that a user's search and count
// read only their own ids. Records carry their owner themselves; this is only the index.
import type { RedisClient } from './redis.js';
import { keys, type OwnedKind } from './keys.js';

export interface OwnerIndex {
  add(kind: OwnedKind, owner: string, id: string, scoreMs: number): Promise<void>;
  /** Moves an id already in the index to a new score; an id not there (removed) stays out. */
  move(kind: OwnedKind, owner: string, id: string, scoreMs: number): Promise<void>;
  remove(kind: OwnedKind, owner: string, id: string): Promise<void>;
  /** The owner's ids of one kind, lowest score first (`desc`: highest first). */
  ids(kind: OwnedKind, owner: string, order?: 'asc' | 'desc'): Promise<string[]>;
}

export function createOwnerIndex(redis: RedisClient): OwnerIndex {
  return {
    async add(kind, owner, id, scoreMs) {
      await redis.zadd(keys.ownerIndex(owner, kind), scoreMs, id);
    },
    async move(kind, owner, id, scoreMs) {
      await redis.zadd(keys.ownerIndex(owner, kind), 'XX', scoreMs, id);
    },
    async remove(kind, owner, id) {
      await redis.zrem(keys.ownerIndex(owner, kind), id);
    },
    ids: (kind, owner, order = 'asc') =>
      order === 'asc' ? redis.zrange(keys.ownerIndex(owner, kind), 0, -1) : redis.zrevrange(keys.ownerIndex(owner, kind), 0, -1),
  };
}
