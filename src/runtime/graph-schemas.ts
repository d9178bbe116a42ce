// The JSON schemas of a hosted graph, as `/assistants/{id}/schemas` and `/subgraphs` answer them.
// As LangGraph's server does: a graph declared with Zod or StateSchema gives its own at run time
// (read with LangGraph's extractors from the copy the graph imports); a TypeScript graph whose types are TypeScript types or
// Annotations has them derived from its types (type-schemas/). A JavaScript graph declared with
// Annotation carries no types at all: its schemas list its channels, each taking any JSON value.
import type { HostedGraph } from '../../graphs/registry.js';
import { WARREN_EXTRACTORS, type SchemaExtractors } from '../../graphs/schema-extractors.js';
import type { GraphSchemas } from './assistants.schemas.js';
import type { GraphTypeSchemas } from './type-schemas/type-schemas.js';

type JsonSchema = Record<string, unknown>;

/** A graph's four schemas, as the type parser names them. */
export type SchemaParts = GraphTypeSchemas;

export const NO_SCHEMAS: SchemaParts = { state: null, input: null, output: null, config: null };

/** The parts of a StateGraph's builder its compiled graph keeps (LangGraph's internals, read only). */
interface BuilderDefinitions {
  _schemaDefinition?: unknown;
  _inputDefinition?: unknown;
  _outputDefinition?: unknown;
}

const builderOf = (graph: HostedGraph): BuilderDefinitions | undefined => (graph as { builder?: BuilderDefinitions }).builder;

/** One of LangGraph's extractors; a schema it cannot convert counts as none. */
function tryExtract(extract: (graph: unknown) => unknown, graph: HostedGraph): JsonSchema | null {
  try {
    const schema = extract(graph);
    return schema && typeof schema === 'object' ? (schema as JsonSchema) : null;
  } catch {
    // LangGraph could not convert this graph's schema: the route answers without it, as LangGraph does.
    return null;
  }
}

function channelsSchema(definition: unknown, fallback: unknown, title: string): JsonSchema | null {
  // An input "inherits the state" as a symbol, not as an object.
  const spec = definition && typeof definition === 'object' ? definition : fallback;
  if (!spec || typeof spec !== 'object') return null;
  const channels = Object.keys(spec).filter((name) => !name.startsWith('__'));
  if (channels.length === 0) return null;
  return { title, type: 'object', properties: Object.fromEntries(channels.map((name) => [name, {}])) };
}

/** The schemas a graph declared with Zod (or StateSchema) carries; null when it carries none. `extractors`: LangGraph's, from the copy the graph's module imports (its zod registry is there). */
export function runtimeSchemas(graph: HostedGraph, extractors: SchemaExtractors = WARREN_EXTRACTORS): SchemaParts | null {
  const typed: SchemaParts = {
    input: tryExtract((g) => extractors.getInputTypeSchema(g), graph),
    output: tryExtract((g) => extractors.getOutputTypeSchema(g), graph),
    state: tryExtract((g) => extractors.getStateTypeSchema(g), graph),
    config: tryExtract((g) => extractors.getConfigTypeSchema(g), graph),
  };
  return Object.values(typed).some((schema) => schema !== null) ? typed : null;
}

/** A graph without types at run time or in source: its channels, each any value. */
export function channelSchemas(graph: HostedGraph): SchemaParts {
  const builder = builderOf(graph);
  return {
    state: channelsSchema(builder?._schemaDefinition, null, 'State'),
    input: channelsSchema(builder?._inputDefinition, builder?._schemaDefinition, 'Input'),
    output: channelsSchema(builder?._outputDefinition, builder?._schemaDefinition, 'Output'),
    config: null,
  };
}

export function toGraphSchemas(graphId: string, parts: SchemaParts): GraphSchemas {
  return {
    graph_id: graphId,
    input_schema: parts.input,
    output_schema: parts.output,
    state_schema: parts.state,
    config_schema: parts.config,
    // In LangGraph.js a graph's context and its configurable are declared by the one schema.
    context_schema: parts.config,
  };
}

interface DrawnNode {
  id: unknown;
  type?: unknown;
  data?: unknown;
}

/**
 * A drawn graph (`/graph`) whose start and end nodes show the graph's input and output schema,
 * as LangGraph's Python server draws them; LangGraph.js draws them as "any value".
 */
export function withEndpointSchemas(drawn: Record<string, unknown>, parts: SchemaParts): Record<string, unknown> {
  if (!Array.isArray(drawn.nodes)) return drawn;
  const schemaFor: Record<string, JsonSchema | null> = { __start__: parts.input, __end__: parts.output };
  const nodes = (drawn.nodes as DrawnNode[]).map((node) => {
    const schema = typeof node.id === 'string' ? schemaFor[node.id] : undefined;
    return schema && node.type === 'schema' ? { ...node, data: { ...schema, title: node.id } } : node;
  });
  return { ...drawn, nodes };
}
