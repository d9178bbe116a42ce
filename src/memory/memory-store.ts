// Each user's memory document, kept in the long-term store (namespace `["memory", <user>]`, key
// `memory`), so every API replica and worker reads the same one and /store/items shows it.
//
// Facts live inside the document rather than as items of their own: the model's revision after
// a turn changes summaries and facts together, and one item makes that one compare-and-set, so a
// reader never sees half a revision; `max_facts` (at most 500) keeps the item small. Every change
// is a compare-and-set on the item, retried on a conflict: two replicas adding facts, and a worker
// applying a revision, all keep each other's changes.
import { ANONYMOUS_USER } from '../auth/identity.js';
import { Value } from 'typebox/value';
import { emptyMemory, MemoryDocumentSchema, type MemoryDocument } from './memory-document.js';
import type { ItemStore } from '../store/store-items.js';

/** The one user until authentication has users (DeerFlow's default user id). */
export const DEFAULT_MEMORY_USER = 'default';

/**
 * Whose memory a record owner's runs and requests use: their own, or for the anonymous user
 * (an open deployment) the one memory the deployment keeps (`WARREN_MEMORY_USER`).
 */
export const memoryUserOf = (owner: string | null, anonymousMemoryUser: string = DEFAULT_MEMORY_USER): string =>
  owner === null || owner === ANONYMOUS_USER ? anonymousMemoryUser : owner;
export const MEMORY_USER_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export const memoryNamespace = (userId: string): string[] => ['memory', userId];
const MEMORY_KEY = 'memory';
/** Never expires, whatever the store's default TTL; not embedded for semantic search. */
const WRITE_OPTIONS = { ttlMinutes: null, index: false } as const;

export interface MemoryStore {
  /** The user's memory; an empty document when there is none (or what is stored is not memory). */
  read(userId: string): Promise<MemoryDocument>;
  /**
   * Applies `edit` to the current document and stores the result if nothing changed it
   * meanwhile, else reads again and retries. `edit` must be free of side effects; it returns
   * null to leave the memory as it is (and may throw to refuse, which stores nothing).
   */
  change(userId: string, edit: (current: MemoryDocument) => MemoryDocument | null): Promise<MemoryDocument>;
  /** Replaces the whole document (an import). */
  replace(userId: string, memory: MemoryDocument): Promise<MemoryDocument>;
  clear(userId: string): Promise<void>;
}

export function createMemoryStore(items: ItemStore): MemoryStore {
  const load = async (userId: string) => {
    const item = await items.get(memoryNamespace(userId), MEMORY_KEY, { refreshTtl: false });
    const stored = item?.value ?? null;
    return { stored, memory: stored !== null && Value.Check(MemoryDocumentSchema, stored) ? stored : emptyMemory() };
  };

  return {
    async read(userId) {
      return (await load(userId)).memory;
    },

    async change(userId, edit) {
      for (;;) {
        const { stored, memory } = await load(userId);
        const next = edit(structuredClone(memory));
        if (next === null) return memory;
        if (await items.putIfUnchanged(memoryNamespace(userId), MEMORY_KEY, next, stored, WRITE_OPTIONS)) return next;
      }
    },

    async replace(userId, memory) {
      await items.put(memoryNamespace(userId), MEMORY_KEY, memory, WRITE_OPTIONS);
      return memory;
    },

    async clear(userId) {
      await items.delete(memoryNamespace(userId), MEMORY_KEY);
    },
  };
}
