// DeerFlow's memory document: what `/api/memory` answers and what the lead agent is told about
// its user. Summaries of the user and their history, and a list of facts, each with a
// confidence. Pure functions over it; the store (src/memory/memory-store.ts) keeps it in Redis.
import { randomUUID } from 'node:crypto';
import { Type, type Static } from 'typebox';

export const MEMORY_VERSION = '1.0';

/** DeerFlow's fact categories; any other short label is kept as given (DeerFlow's field is a free string). */
export const FACT_CATEGORIES = ['preference', 'knowledge', 'context', 'behavior', 'goal', 'correction'] as const;

export const ContextSectionSchema = Type.Object({
  summary: Type.String({ maxLength: 20_000 }),
  /** ISO time of the last change, or "" for never. */
  updatedAt: Type.String({ maxLength: 64 }),
});
export type ContextSection = Static<typeof ContextSectionSchema>;

export const USER_SECTIONS = ['workContext', 'personalContext', 'topOfMind'] as const;
export const HISTORY_SECTIONS = ['recentMonths', 'earlierContext', 'longTermBackground'] as const;

const sectionsOf = <const K extends readonly string[]>(names: K) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, ContextSectionSchema])) as { [P in K[number]]: typeof ContextSectionSchema }, {
    additionalProperties: false,
  });

export const UserContextSchema = sectionsOf(USER_SECTIONS);
export const HistoryContextSchema = sectionsOf(HISTORY_SECTIONS);

export const FACT_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const FactContentSchema = Type.String({ minLength: 1, maxLength: 2000 });
export const FactCategorySchema = Type.String({ minLength: 1, maxLength: 64 });
export const ConfidenceSchema = Type.Number({ minimum: 0, maximum: 1 });

export const MemoryFactSchema = Type.Object(
  {
    id: Type.String({ pattern: FACT_ID_PATTERN }),
    content: FactContentSchema,
    category: FactCategorySchema,
    confidence: ConfidenceSchema,
    createdAt: Type.String({ maxLength: 64 }),
    /** Where it was learnt: the thread id, or `manual` for a fact added through the API. */
    source: Type.String({ maxLength: 128 }),
  },
  { additionalProperties: false },
);
export type MemoryFact = Static<typeof MemoryFactSchema>;

export const MemoryDocumentSchema = Type.Object(
  {
    version: Type.String({ maxLength: 16 }),
    lastUpdated: Type.String({ maxLength: 64 }),
    user: UserContextSchema,
    history: HistoryContextSchema,
    facts: Type.Array(MemoryFactSchema, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type MemoryDocument = Static<typeof MemoryDocumentSchema>;

const emptySection = (): ContextSection => ({ summary: '', updatedAt: '' });
const emptySections = <K extends string>(names: readonly K[]) => Object.fromEntries(names.map((n) => [n, emptySection()])) as Record<K, ContextSection>;

/**
 * A memory with nothing in it, stamped `now` (UTC, ISO, ending in Z): DeerFlow's empty memory
 * carries the time it was made, not "", and its UI shows that date.
 */
export function emptyMemory(now: string = new Date().toISOString()): MemoryDocument {
  return { version: MEMORY_VERSION, lastUpdated: now, user: emptySections(USER_SECTIONS), history: emptySections(HISTORY_SECTIONS), facts: [] };
}

export const newFactId = (): string => `fact_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** Facts are the same when their text is, case and surrounding spaces aside. */
export const sameContent = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
export const hasFactLike = (memory: MemoryDocument, content: string): boolean => memory.facts.some((f) => sameContent(f.content, content));

/**
 * At most `maxFacts` facts: the lowest confidence goes first, and among equals the oldest, so a
 * fact just learnt survives one as sure but older. The order of those kept is unchanged.
 */
export function keepMostConfident(facts: readonly MemoryFact[], maxFacts: number): MemoryFact[] {
  if (facts.length <= maxFacts) return [...facts];
  const ranked = facts
    .map((fact, index) => ({ fact, index }))
    .sort((a, b) => b.fact.confidence - a.fact.confidence || b.fact.createdAt.localeCompare(a.fact.createdAt) || b.index - a.index);
  const kept = new Set(ranked.slice(0, maxFacts).map((r) => r.fact));
  return facts.filter((fact) => kept.has(fact));
}

/** True when there is nothing to remember: no summary and no fact. */
export function isEmptyMemory(memory: MemoryDocument): boolean {
  const sections = [...Object.values(memory.user), ...Object.values(memory.history)];
  return memory.facts.length === 0 && sections.every((s) => s.summary.trim() === '');
}

/** The memory with `facts` added (after those it has) and cut to `maxFacts`, stamped `now`. */
export function withFacts(memory: MemoryDocument, facts: readonly MemoryFact[], maxFacts: number, now: string): MemoryDocument {
  return { ...memory, lastUpdated: now, facts: keepMostConfident([...memory.facts, ...facts], maxFacts) };
}
