// The type parser on its own (src/runtime/type-schemas/, issue #32): which values of a graph file
// are subgraphs (read from the syntax), and the schemas of the forms a graph export takes in
// LangGraph.js projects (default export, factories, a builder, separate input and output with a
// context type, nodes added in statements of their own, an imported subgraph), compiled once.
// @langchain/langgraph-api 1.5.1's parser gives the same schemas for these exports (compared by
// hand), except that it finds no schemas for a default export and no subgraph added in a statement.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractTypeSchemas } from '../../src/runtime/type-schemas/extract.js';
import { findSubgraphCandidates } from '../../src/runtime/type-schemas/find-subgraphs.js';
import type { SchemaFileResult } from '../../src/runtime/type-schemas/schema-protocol.js';

const SHAPES = fileURLToPath(new URL('../fixtures/graphs/typed/shapes.mts', import.meta.url));
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const LOG = { type: 'object', properties: { log: { type: 'array', items: { type: 'string' } } }, $schema: DRAFT_07 };
const NO_CONFIG = { type: 'object', $schema: DRAFT_07 };
const SEARCH = { type: 'object', properties: { query: { type: 'string' }, hits: { type: 'array', items: { type: 'number' } } }, $schema: DRAFT_07 };

const candidates = (text: string, exportName: string) => findSubgraphCandidates(ts.createSourceFile('graph.mts', text, ts.ScriptTarget.Latest, true), exportName);

describe('subgraph candidates, from the syntax', () => {
  it('follow addNode calls, through the builder a graph compiles, its statements, and nested graphs', () => {
    const text = `
      import { sub } from './sub.mjs';
      const inner = new StateGraph(S).addNode('leaf', other).compile();
      const outer = new StateGraph(S).addNode('deep', inner).compile();
      const b = new StateGraph(S);
      b.addNode('direct', outer).addNode('called', async (s) => sub.invoke(s)).addNode('plain', () => ({}));
      export const graph = b.compile();
      export { graph as aliased };
    `;
    const expected = [
      { namespace: 'graph|direct', identifiers: ['outer'] },
      { namespace: 'graph|direct|deep', identifiers: ['inner'] },
      { namespace: 'graph|called', identifiers: ['sub'] },
    ];
    expect(candidates(text, 'graph')).toEqual(expected);
    expect(candidates(text, 'aliased').map((c) => c.namespace)).toEqual(['aliased|direct', 'aliased|direct|deep', 'aliased|called']);
  });

  it('find none for a graph without subgraph nodes, and none for an export that is not there', () => {
    expect(candidates(`export const graph = new StateGraph(S).addNode('a', () => ({})).compile();`, 'graph')).toEqual([]);
    expect(candidates(`export const graph = 1;`, 'missing')).toEqual([]);
  });
});

describe('schemas of the forms a graph export takes', () => {
  let result: SchemaFileResult;
  beforeAll(() => {
    result = extractTypeSchemas({ file: SHAPES, exports: ['default', 'makeGraph', 'makeBuilder', 'split', 'viaStatements'] });
  }, 240_000);

  it('compile the file without errors', () => {
    expect(result.errors).toEqual([]);
    expect(result.broken).toBe(false);
  });

  it('read a default export, a factory and an async factory of a builder as the graph they make', () => {
    for (const name of ['default', 'makeGraph', 'makeBuilder']) {
      expect(result.graphs[name]).toEqual({ [name]: { state: LOG, input: LOG, output: LOG, config: NO_CONFIG } });
    }
  });

  it('give separate input and output Annotations their own schemas, and the context type as config', () => {
    const question = { type: 'object', properties: { question: { type: 'string' } }, $schema: DRAFT_07 };
    expect(result.graphs.split).toEqual({
      split: {
        // LangGraph's server reports what the graph accepts as its state.
        state: question,
        input: question,
        output: { type: 'object', properties: { answer: { type: 'string' }, sources: { type: 'array', items: { type: 'string' } } }, $schema: DRAFT_07 },
        config: { type: 'object', properties: { locale: { enum: ['en', 'fr'], type: 'string' } }, $schema: DRAFT_07 },
      },
    });
  });

  it('find an imported subgraph added in a statement of its own', () => {
    expect(result.graphs.viaStatements).toEqual({
      viaStatements: { state: SEARCH, input: SEARCH, output: SEARCH, config: NO_CONFIG },
      'viaStatements|lookup': { state: SEARCH, input: SEARCH, output: SEARCH, config: NO_CONFIG },
    });
  });
});
