// Schemas from TypeScript types (issue #32): graphs whose state, input, output and config are
// TypeScript types and Annotations carry nothing at run time, so LangGraph's server derives their
// JSON schemas from the types; so does Warren. Through the SDK on 2 API replicas and 2 workers:
// /schemas, /subgraphs and /graph for an Annotation.Root graph with reducers, messages, unions,
// optional and nested fields, arrays, a config type and a subgraph; a MessagesAnnotation graph;
// a Zod graph that keeps its own (and never starts the compiler); a graph whose type file does
// not parse (served without schemas, with a warning, and still runs).
// The expected JSON follows the shapes LangGraph's server documents and its parser tests show:
// draft-07, no `required`, messages as `BaseMessage` references, nesting cut after three levels
// (an array counts as one), the context schema equal to the config schema. They are also what
// the parser of @langchain/langgraph-api 1.5.1 gives for the same file (compared by hand, outside
// the suite: identical but for the id TypeScript gives an internal symbol key of RemoveMessage).
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait-for.js';

const typed = (file: string) => fileURLToPath(new URL(`../fixtures/graphs/typed/${file}`, import.meta.url));

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const BASE_MESSAGE = 'BaseMessage<MessageStructure<MessageToolSet>,MessageType>';
const MESSAGES = { type: 'array', items: { $ref: `#/definitions/${BASE_MESSAGE}` } };
/** LangGraph's server shows a message as the abstract BaseMessage, one of its subclasses. */
const BASE_MESSAGE_DEFINITION = {
  [BASE_MESSAGE]: { description: expect.stringContaining('Base class for all types of messages'), oneOf: [{ $ref: '#/definitions/RemoveMessage' }] },
};

// The planner's state: `tasks` is Task[], and a task's own fields sit at the fourth level, which
// LangGraph's server shows as any value; `summary` (an object or null) is at the second.
const TASK = '{title:any;done:any;priority:any;owner:any;tags:any;due?:any;}';
const SUMMARY = '{text:string;words:number;}';
const PLAN_PROPERTIES = {
  goal: { type: 'string' },
  tasks: { type: 'array', items: { $ref: `#/definitions/${TASK}` } },
  attempts: { type: 'number' },
  priority: { enum: ['high', 'low'], type: 'string' },
  summary: { anyOf: [{ $ref: `#/definitions/${SUMMARY}` }, { type: 'null' }] },
  messages: MESSAGES,
};
const PLAN_DEFINITIONS = {
  [TASK]: { type: 'object', properties: { title: {}, done: {}, priority: {}, owner: {}, tags: {}, due: {} } },
  [SUMMARY]: { type: 'object', properties: { text: { type: 'string' }, words: { type: 'number' } } },
  ...BASE_MESSAGE_DEFINITION,
};
const SETTINGS = '{model:string;temperature?:number|undefined;mode:"fast"|"careful";}';
const PLAN_CONFIG = {
  type: 'object',
  properties: { settings: { $ref: `#/definitions/${SETTINGS}` }, user_id: { type: 'string' } },
  $schema: DRAFT_07,
  definitions: {
    [SETTINGS]: {
      type: 'object',
      properties: {
        // A field's doc comment becomes its description.
        model: { description: 'The model the planner asks.', type: 'string' },
        temperature: { type: 'number' },
        mode: { enum: ['careful', 'fast'], type: 'string' },
      },
    },
  },
};
/** A graph with no config type: an open object. */
const NO_CONFIG = { type: 'object', $schema: DRAFT_07 };
const REVIEW = { type: 'object', properties: { verdict: { enum: ['approve', 'reject'], type: 'string' }, messages: MESSAGES }, $schema: DRAFT_07, definitions: BASE_MESSAGE_DEFINITION };

let cluster: Cluster;
let replicas: Client[];
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      graphs: {
        planner: `${typed('typed-graphs.mts')}:planner`,
        chat: `${typed('typed-graphs.mts')}:chat`,
        broken: `${typed('broken.mts')}:broken`,
        zod: `${typed('zod-graph.mts')}:zodGraph`,
      },
    },
  });
  replicas = cluster.apis.map((api) => new Client({ apiUrl: `http://127.0.0.1:${api.port}/api/langgraph` }));
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

const metricsOf = async (index: number): Promise<string> => (await fetch(`http://127.0.0.1:${cluster.apis[index]?.port}/metrics`)).text();
const derivations = (metrics: string, outcome: string): number => Number(new RegExp(`^warren_graph_type_schema_duration_seconds_count\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);

describe('schemas from TypeScript types, on two replicas', () => {
  it('a Zod graph keeps its own schemas, and asking for them never starts the TypeScript compiler', async () => {
    for (const client of replicas) {
      const schemas = await client.assistants.getSchemas('zod');
      expect(schemas.state_schema).toMatchObject({ type: 'object', properties: { question: { type: 'string' }, answer: { type: 'string' } } });
    }
    for (const index of [0, 1]) expect(await metricsOf(index)).not.toMatch(/^warren_graph_type_schema_duration_seconds_count/m);
  });

  it('derives an Annotation.Root graph’s input, output, state, config and context from its types', async () => {
    const [a, b] = await Promise.all(replicas.map((client) => client.assistants.getSchemas('planner')));
    expect(b).toEqual(a);
    expect(a?.graph_id).toBe('planner');
    for (const schema of [a?.input_schema, a?.output_schema, a?.state_schema]) {
      expect(schema).toMatchObject({ type: 'object', $schema: DRAFT_07, definitions: PLAN_DEFINITIONS });
      expect((schema as { properties: unknown }).properties).toEqual(PLAN_PROPERTIES);
      expect(schema).not.toHaveProperty('required');
    }
    expect(a?.config_schema).toEqual(PLAN_CONFIG);
    expect(a?.context_schema).toEqual(a?.config_schema);
  }, 240_000);

  it('names the subgraph added as a node, with its own state', async () => {
    for (const client of replicas) {
      const subgraphs = await client.assistants.getSubgraphs('planner');
      expect(Object.keys(subgraphs)).toEqual(['review']);
      expect(subgraphs.review).toMatchObject({ graph_id: 'planner', input_schema: REVIEW, output_schema: REVIEW, state_schema: REVIEW, config_schema: NO_CONFIG });
    }
  }, 240_000);

  it('derives a MessagesAnnotation graph: messages only, no config type', async () => {
    for (const client of replicas) {
      const schemas = await client.assistants.getSchemas('chat');
      for (const schema of [schemas.input_schema, schemas.output_schema, schemas.state_schema]) {
        expect(schema).toMatchObject({ type: 'object', $schema: DRAFT_07, definitions: BASE_MESSAGE_DEFINITION });
        expect((schema as { properties: unknown }).properties).toEqual({ messages: MESSAGES });
      }
      expect(schemas.config_schema).toEqual(NO_CONFIG);
      // Its subgraph is called inside a node function: LangGraph lists no subgraph for it either.
      expect(await client.assistants.getSubgraphs('chat')).toEqual({});
    }
  }, 240_000);

  it('draws the start and end nodes of /graph with the input and output schemas', async () => {
    for (const client of replicas) {
      const drawn = (await client.assistants.getGraph('planner')) as unknown as { nodes: { id: string; type: string; data: Record<string, unknown> }[] };
      const start = drawn.nodes.find((node) => node.id === '__start__');
      const end = drawn.nodes.find((node) => node.id === '__end__');
      expect(start).toMatchObject({ type: 'schema', data: { title: '__start__', type: 'object', properties: PLAN_PROPERTIES } });
      expect(end).toMatchObject({ type: 'schema', data: { title: '__end__', type: 'object', properties: PLAN_PROPERTIES } });
      expect(drawn.nodes.map((node) => node.id)).toEqual(expect.arrayContaining(['plan', 'review']));
    }
  }, 240_000);

  it('derives each graph file once per process, however often its graphs are asked for', async () => {
    for (const index of [0, 1]) expect(derivations(await metricsOf(index), 'ok')).toBe(1);
  });

  it('serves a graph whose type file does not parse without schemas, warns, and still runs it', async () => {
    for (const client of replicas) {
      expect(await client.assistants.getSchemas('broken')).toEqual({
        graph_id: 'broken',
        input_schema: null,
        output_schema: null,
        state_schema: null,
        config_schema: null,
        context_schema: null,
      });
    }
    for (const [index, api] of cluster.apis.entries()) {
      const warned = api.lines.some((line) => line.includes('does not parse as TypeScript') && line.includes('broken-types.mts:5'));
      expect(warned, `${api.name} logged the parse error`).toBe(true);
      expect(derivations(await metricsOf(index), 'broken')).toBe(1);
    }
    const { thread_id: threadId } = await replicas[0]!.threads.create();
    expect(await replicas[1]!.runs.wait(threadId, 'broken', { input: { value: 'kept' } })).toEqual({ value: 'kept' });
    await waitFor(async () => (await replicas[0]!.threads.get(threadId)).status === 'idle', 'the thread to settle');
  }, 240_000);
});
