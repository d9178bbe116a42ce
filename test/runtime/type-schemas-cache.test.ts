// Deriving schemas from types, per process (src/runtime/type-schemas/type-schemas.ts, issue #32):
// a graph file is compiled once per version of its content (an edited file is compiled again),
// a file whose types do not parse is answered without schemas and a warning, a derivation that
// fails (here: its time runs out) is not kept, so the next request tries again, and a request
// made as the process closes is answered without schemas.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTypeSchemas, type DerivationOutcome, type TypeSchemasOptions } from '../../src/runtime/type-schemas/type-schemas.js';
import { ROOT } from '../support/cluster.js';
import { trackedDir } from '../support/leftovers.js';

const dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-type-schemas-')));
// The graph resolves LangGraph as a project's graph does: from a node_modules beside it.
symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true } }));
const graphFile = path.join(dir, 'graph.mts');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const graphSource = (note: string) => `// ${note}
import { Annotation, START, StateGraph } from '@langchain/langgraph';
import type { Topic } from './topic.mjs';
export const graph = new StateGraph(Annotation.Root({ topic: Annotation<Topic> })).addNode('n', () => ({})).addEdge(START, 'n').compile();
`;

function deriver(overrides: Partial<TypeSchemasOptions> = {}) {
  const lines: string[] = [];
  const outcomes: DerivationOutcome[] = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }));
  const schemas = createTypeSchemas({
    ids: () => ['graph'],
    typeSource: (id) => (id === 'graph' ? { file: graphFile, exportName: 'graph' } : null),
    log,
    onDerived: (outcome) => outcomes.push(outcome),
    ...overrides,
  });
  return { schemas, lines, outcomes };
}

describe('schemas from types, per process', () => {
  it('answers a file whose types do not parse without schemas, warns once, and derives an edited file again', async () => {
    writeFileSync(path.join(dir, 'topic.mts'), `export type Topic = 'news' |;\n`);
    writeFileSync(graphFile, graphSource('first'));
    const { schemas, lines, outcomes } = deriver();
    expect(schemas.covers('graph')).toBe(true);
    expect(schemas.covers('other')).toBe(false);
    expect(await schemas.forGraph('graph')).toBeNull();
    expect(await schemas.forGraph('graph')).toBeNull();
    expect(outcomes).toEqual(['broken']);
    expect(lines.filter((line) => line.includes('does not parse')).map((line) => JSON.parse(line) as { level: number; errors: string[] })).toEqual([
      expect.objectContaining({ level: 40, errors: [expect.stringMatching(/^topic\.mts:1:/)] }),
    ]);

    // The type file is fixed and the graph file edited: a new version, derived again.
    writeFileSync(path.join(dir, 'topic.mts'), `export type Topic = 'news' | 'sport';\n`);
    writeFileSync(graphFile, graphSource('second'));
    const derived = await schemas.forGraph('graph');
    expect(outcomes).toEqual(['broken', 'ok']);
    expect(derived?.root.input).toEqual({ type: 'object', properties: { topic: { enum: ['news', 'sport'], type: 'string' } }, $schema: 'http://json-schema.org/draft-07/schema#' });
    expect(derived?.subgraphs).toEqual({});
    await schemas.close();
  }, 240_000);

  it('does not keep a derivation that failed: the next request tries again', async () => {
    const { schemas, lines, outcomes } = deriver({ timeoutMs: 1 });
    expect(await schemas.forGraph('graph')).toBeNull();
    expect(await schemas.forGraph('graph')).toBeNull();
    expect(outcomes).toEqual(['failed', 'failed']);
    expect(lines.filter((line) => line.includes('could not be derived'))).toHaveLength(2);
    await schemas.close();
  });

  it('answers a request made as the process closes without schemas', async () => {
    const { schemas } = deriver();
    const pending = schemas.forGraph('graph');
    await schemas.close();
    expect(await pending).toBeNull();
  });
});
