// The memory routes' rules: facts are unique by content (case and spaces aside), a fact that
// `max_facts` would drop at once is refused rather than silently lost, and every change is a
// compare-and-set on the stored document (MemoryStore.change), so concurrent writers keep theirs.
import type { MemoryConfig } from '../config/app-config.schemas.js';
import {
  emptyMemory,
  hasFactLike,
  HISTORY_SECTIONS,
  MEMORY_VERSION,
  newFactId,
  sameContent,
  USER_SECTIONS,
  withFacts,
  type ContextSection,
  type MemoryDocument,
  type MemoryFact,
} from './memory-document.js';
import { memoryUserOf, type MemoryStore } from './memory-store.js';
import { MemoryFactDuplicateError, MemoryFactEmptyError, MemoryFactNotFoundError, MemoryFullError, MemoryImportInvalidError } from './memory.errors.js';
import type { Identity } from '../auth/identity.js';
import type { FactCreate, FactPatch, MemoryImport, MemorySettings, MemoryStatus } from './memory.schemas.js';

/** DeerFlow's defaults for a fact that does not say. */
const DEFAULT_CATEGORY = 'context';
const DEFAULT_CONFIDENCE = 0.5;

const factNotFound = (id: string) => new MemoryFactNotFoundError(`Memory fact '${id}' not found.`);
const duplicate = () => new MemoryFactDuplicateError('A fact with the same content already exists.');

function cleanContent(content: string): string {
  const trimmed = content.trim();
  if (trimmed === '') throw new MemoryFactEmptyError('content: a memory fact cannot be empty.');
  return trimmed;
}

function importedSections<K extends string>(names: readonly K[], given: Partial<Record<K, Partial<ContextSection>>> | undefined) {
  return Object.fromEntries(names.map((n) => [n, { summary: given?.[n]?.summary ?? '', updatedAt: given?.[n]?.updatedAt ?? '' }])) as Record<K, ContextSection>;
}

export interface MemoryServiceDeps {
  memory: MemoryStore;
  config: MemoryConfig;
  /** The memory an open deployment's anonymous caller keeps (`WARREN_MEMORY_USER`). */
  anonymousUser: string;
}

/** Each caller reads and changes the memory of their own user. */
export function createMemoryService(deps: MemoryServiceDeps) {
  return { of: (caller: Identity) => memoryServiceFor(deps, memoryUserOf(caller.user, deps.anonymousUser)) };
}

function memoryServiceFor(deps: MemoryServiceDeps, userId: string) {
  const { memory, config } = deps;
  const now = () => new Date().toISOString();
  const settings = (): MemorySettings => {
    const { model_name: modelName, ...rest } = config;
    return { ...rest, model_name: modelName ?? null };
  };

  return {
    get: (): Promise<MemoryDocument> => memory.read(userId),

    async clear(): Promise<MemoryDocument> {
      await memory.clear(userId);
      return emptyMemory();
    },

    async addFact(body: FactCreate): Promise<MemoryDocument> {
      const content = cleanContent(body.content);
      const at = now();
      const fact: MemoryFact = {
        id: newFactId(),
        content,
        category: body.category ?? DEFAULT_CATEGORY,
        confidence: body.confidence ?? DEFAULT_CONFIDENCE,
        createdAt: at,
        source: 'manual',
      };
      const updated = await memory.change(userId, (current) => {
        if (hasFactLike(current, content)) throw duplicate();
        const next = withFacts(current, [fact], config.max_facts, at);
        // The cut would drop it at once: write nothing, and say so below.
        return next.facts.some((f) => f.id === fact.id) ? next : null;
      });
      if (!updated.facts.some((f) => f.id === fact.id)) {
        throw new MemoryFullError(`The fact was not stored: memory.max_facts (${config.max_facts}) keeps more confident facts.`);
      }
      return updated;
    },

    patchFact(id: string, body: FactPatch): Promise<MemoryDocument> {
      const content = body.content === undefined ? undefined : cleanContent(body.content);
      return memory.change(userId, (current) => {
        const fact = current.facts.find((f) => f.id === id);
        if (!fact) throw factNotFound(id);
        if (content !== undefined && current.facts.some((f) => f.id !== id && sameContent(f.content, content))) throw duplicate();
        Object.assign(fact, {
          ...(content !== undefined ? { content } : {}),
          ...(body.category !== undefined ? { category: body.category } : {}),
          ...(body.confidence !== undefined ? { confidence: body.confidence } : {}),
        });
        return { ...current, lastUpdated: now() };
      });
    },

    removeFact(id: string): Promise<MemoryDocument> {
      return memory.change(userId, (current) => {
        if (!current.facts.some((f) => f.id === id)) throw factNotFound(id);
        return { ...current, lastUpdated: now(), facts: current.facts.filter((f) => f.id !== id) };
      });
    },

    import(body: MemoryImport): Promise<MemoryDocument> {
      const facts = body.facts ?? [];
      if (facts.length > config.max_facts) throw new MemoryImportInvalidError(`facts: ${facts.length} facts, more than memory.max_facts (${config.max_facts}).`);
      const ids = new Set(facts.map((f) => f.id));
      if (ids.size !== facts.length) throw new MemoryImportInvalidError('facts: two facts share an id.');
      return memory.replace(userId, {
        version: body.version ?? MEMORY_VERSION,
        lastUpdated: body.lastUpdated ?? now(),
        user: importedSections(USER_SECTIONS, body.user),
        history: importedSections(HISTORY_SECTIONS, body.history),
        facts: facts.map((f) => ({
          id: f.id,
          content: f.content,
          category: f.category ?? DEFAULT_CATEGORY,
          confidence: f.confidence ?? DEFAULT_CONFIDENCE,
          createdAt: f.createdAt ?? '',
          source: f.source ?? 'unknown',
        })),
      });
    },

    settings,

    async status(): Promise<MemoryStatus> {
      return { config: settings(), data: await memory.read(userId) };
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
