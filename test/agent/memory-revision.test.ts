// The pure parts of memory: the model's revision applied (threshold, duplicates, max_facts), and
// the memory in the prompt within its token budget (estimated as characters / 4).
import { describe, expect, it } from 'vitest';
import { memoryPromptSection, estimateTokens } from '../../graphs/lead-agent/memory-prompt.js';
import { emptyMemory, type MemoryDocument } from '../../src/memory/memory-document.js';
import { applyRevision, parseRevision } from '../../src/memory/memory-revision.js';

const NOW = '2025-01-01T00:00:00.000Z';
const withFacts = (n: number): MemoryDocument => ({
  ...emptyMemory(),
  facts: Array.from({ length: n }, (_, i) => ({ id: `f${i}`, content: `fact number ${i}`, category: 'context', confidence: i / n, createdAt: NOW, source: 't' })),
});

describe('memory revision', () => {
  it('reads the first JSON object of an answer, and refuses anything else', () => {
    expect(parseRevision('```json\n{"newFacts": []}\n```')).toEqual({ newFacts: [] });
    expect(parseRevision('no json here')).toBeNull();
    expect(parseRevision('{"newFacts": "not a list"}')).toBeNull();
    expect(parseRevision('{"newFacts": [{"content": "x", "confidence": 7}]}')).toBeNull();
    expect(parseRevision('[1, 2]')).toBeNull();
  });

  it('adds sure, new facts, removes the named ones, and drops the least confident past max_facts', () => {
    const revision = parseRevision(
      JSON.stringify({
        newFacts: [
          { content: 'brand new', confidence: 0.99, source: 'thread-b' },
          { content: 'FACT NUMBER 9', confidence: 0.99 },
          { content: 'too unsure', confidence: 0.2 },
        ],
        factsToRemove: ['f8'],
      }),
    );
    expect(revision).not.toBeNull();
    const revised = applyRevision(withFacts(10), revision!, { maxFacts: 10, confidenceThreshold: 0.5, threadIds: ['thread-a', 'thread-b'], now: NOW });
    const contents = revised.facts.map((f) => f.content);
    expect(contents).toHaveLength(10);
    expect(contents).toContain('brand new');
    expect(contents).not.toContain('fact number 8');
    expect(contents).not.toContain('too unsure');
    expect(contents.filter((c) => c.toLowerCase() === 'fact number 9')).toHaveLength(1);
    expect(revised.facts.find((f) => f.content === 'brand new')?.source).toBe('thread-b');
    // 10 kept of 10 - 1 + 1: nothing had to go.
    expect(contents).toContain('fact number 0');
    const crowded = applyRevision(withFacts(10), { newFacts: [{ content: 'another', confidence: 0.95 }] }, { maxFacts: 10, confidenceThreshold: 0, threadIds: ['t'], now: NOW });
    expect(crowded.facts.map((f) => f.content)).not.toContain('fact number 0');
    expect(crowded.facts.map((f) => f.content)).toContain('another');
  });
});

describe('memory in the prompt', () => {
  it('is empty for an empty memory, and keeps within the budget, most confident facts first', () => {
    expect(memoryPromptSection(emptyMemory(), 2000)).toBe('');
    const section = memoryPromptSection(withFacts(200), 150);
    expect(estimateTokens(section)).toBeLessThanOrEqual(150);
    expect(section).toContain('fact number 199');
    expect(section).not.toContain('fact number 0\n');
    const lines = section.split('\n').filter((l) => l.startsWith('- ['));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.length).toBeLessThan(200);
    expect(lines[0]).toBe('- [context] fact number 199');
  });
});
