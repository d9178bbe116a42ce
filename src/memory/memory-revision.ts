// The model's revision of a memory document, as JSON in DeerFlow's update format: summaries to
// rewrite (`shouldUpdate`), facts to add and fact ids to remove. Anything that is not such an
// object is refused as a whole (null), so a confused model never touches the memory.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import {
  HISTORY_SECTIONS,
  newFactId,
  sameContent,
  USER_SECTIONS,
  withFacts,
  type ContextSection,
  type MemoryDocument,
  type MemoryFact,
} from './memory-document.js';

const SectionRevisionSchema = Type.Object({ summary: Type.String(), shouldUpdate: Type.Optional(Type.Boolean()) });
const sectionRevisions = (names: readonly string[]) => Type.Optional(Type.Object(Object.fromEntries(names.map((n) => [n, Type.Optional(SectionRevisionSchema)]))));

export const MemoryRevisionSchema = Type.Object({
  user: sectionRevisions(USER_SECTIONS),
  history: sectionRevisions(HISTORY_SECTIONS),
  newFacts: Type.Optional(
    Type.Array(
      Type.Object({
        content: Type.String(),
        category: Type.Optional(Type.String()),
        confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        /** The thread it was learnt in, among those of the update. */
        source: Type.Optional(Type.String()),
      }),
    ),
  ),
  factsToRemove: Type.Optional(Type.Array(Type.String())),
});
export type MemoryRevision = Static<typeof MemoryRevisionSchema>;

/** The first JSON object in the model's answer (a fenced block or prose around it is fine), if it is a revision. */
export function parseRevision(text: string): MemoryRevision | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    // The model's answer held no JSON: no revision, and the memory stays as it is.
    return null;
  }
  return Value.Check(MemoryRevisionSchema, parsed) ? parsed : null;
}

export interface RevisionSettings {
  maxFacts: number;
  /** New facts less sure than this are not kept. */
  confidenceThreshold: number;
  /** The threads of the turns revised; a fact naming none of them gets the last. */
  threadIds: readonly string[];
  now: string;
}

const MAX_SUMMARY_CHARS = 20_000;
const MAX_FACT_CHARS = 2000;
const MAX_CATEGORY_CHARS = 64;
/** A fact the model gives no confidence gets DeerFlow's "strongly implied". */
const DEFAULT_MODEL_CONFIDENCE = 0.8;

function reviseSections<K extends string>(sections: Record<K, ContextSection>, names: readonly K[], revised: Partial<Record<string, { summary: string; shouldUpdate?: boolean }>> | undefined, now: string) {
  const out = { ...sections };
  for (const name of names) {
    const change = revised?.[name];
    if (!change || change.shouldUpdate === false) continue;
    out[name] = { summary: change.summary.trim().slice(0, MAX_SUMMARY_CHARS), updatedAt: now };
  }
  return out;
}

/** The memory as revised: summaries rewritten, facts removed, new facts added (no duplicates), cut to `maxFacts`. */
export function applyRevision(memory: MemoryDocument, revision: MemoryRevision, settings: RevisionSettings): MemoryDocument {
  const { now, threadIds } = settings;
  const removed = new Set(revision.factsToRemove ?? []);
  const kept = memory.facts.filter((f) => !removed.has(f.id));
  const added: MemoryFact[] = [];
  for (const proposed of revision.newFacts ?? []) {
    const content = proposed.content.trim().slice(0, MAX_FACT_CHARS);
    const confidence = proposed.confidence ?? DEFAULT_MODEL_CONFIDENCE;
    if (content === '' || confidence < settings.confidenceThreshold) continue;
    if ([...kept, ...added].some((f) => sameContent(f.content, content))) continue;
    const category = proposed.category?.trim().slice(0, MAX_CATEGORY_CHARS) || 'context';
    added.push({
      id: newFactId(),
      content,
      category,
      confidence,
      createdAt: now,
      source: proposed.source && threadIds.includes(proposed.source) ? proposed.source : (threadIds.at(-1) ?? 'unknown'),
    });
  }
  return withFacts(
    {
      ...memory,
      user: reviseSections(memory.user, USER_SECTIONS, revision.user, now),
      history: reviseSections(memory.history, HISTORY_SECTIONS, revision.history, now),
      facts: kept,
    },
    added,
    settings.maxFacts,
    now,
  );
}
