// The JSON schemas of a hosted graph, as `/assistants/{id}/schemas` and `/subgraphs` answer them.
// LangGraph derives them at run time from a graph declared with Zod or StateSchema (the helpers
// below are LangGraph's own). A graph declared with Annotation carries no types at run time: its
// schemas list its channels, each taking any JSON value. A graph with no builder has none (null).
import type { HostedGraph } from '../../graphs/registry.js';
import { WARREN_EXTRACTORS, type SchemaExtractors } from '../../graphs/schema-extractors.js';
import type { GraphSchemas } from './assistants.schemas.js';

type JsonSchema = Record<string, unknown>;

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

/** `extractors`: LangGraph's, from the copy the graph's module imports (its zod registry is there). */
export function graphSchemas(graphId: string, graph: HostedGraph, extractors: SchemaExtractors = WARREN_EXTRACTORS): GraphSchemas {
  const builder = builderOf(graph);
  const typed = {
    input: tryExtract((g) => extractors.getInputTypeSchema(g), graph),
    output: tryExtract((g) => extractors.getOutputTypeSchema(g), graph),
    state: tryExtract((g) => extractors.getStateTypeSchema(g), graph),
    config: tryExtract((g) => extractors.getConfigTypeSchema(g), graph),
  };
  const hasTypes = Object.values(typed).some((schema) => schema !== null);
  const state = hasTypes ? typed.state : channelsSchema(builder?._schemaDefinition, null, 'State');
  const input = hasTypes ? typed.input : channelsSchema(builder?._inputDefinition, builder?._schemaDefinition, 'Input');
  const output = hasTypes ? typed.output : channelsSchema(builder?._outputDefinition, builder?._schemaDefinition, 'Output');
  return {
    graph_id: graphId,
    input_schema: input,
    output_schema: output,
    state_schema: state,
    config_schema: typed.config,
    // In LangGraph.js a graph's context and its configurable are declared by the one schema.
    context_schema: typed.config,
  };
}
