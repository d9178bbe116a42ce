// The TypeScript text appended to a copy of a graph's file so the compiler can name the types
// LangGraph's server describes: for the graph export and each subgraph found in it, its input
// (the update type of its input channels), output (the state type of its output channels),
// config (the update type of its config channels) and state (what the compiled graph accepts:
// LangGraph's server reports the input update type there). Message fields collapse to
// `BaseMessage` / `BaseMessage[]`, as the server shows them, and nesting stops after three
// levels (deeper values are `any`), as it does, so deep or recursive types stay finite.
// Written for Warren (not taken from LangGraph); the behaviour it mirrors is LangGraph's.

/** The prefix of every name we add to the copy, chosen to collide with nothing a project declares. */
export const REFLECT_PREFIX = '__warren_schema_';

/** The helper types, declared once per copy (they resolve LangGraph from the project's own folder). */
export function reflectHelpers(): string {
  const p = REFLECT_PREFIX;
  return `
import type { BaseMessage as ${p}BaseMessage } from '@langchain/core/messages';
import type { StateDefinition as ${p}StateDefinition, StateType as ${p}StateType, UpdateType as ${p}UpdateType } from '@langchain/langgraph';
type ${p}Loose = any;
type ${p}IsAny<T> = 0 extends 1 & T ? true : false;
type ${p}NotAny<T> = ${p}IsAny<T> extends true ? never : T;
/** A factory's graph (sync or async), or the graph (or a promise of it) itself. */
type ${p}Made<T> = T extends (...args: ${p}Loose[]) => infer R ? Awaited<R> : Awaited<T>;
/** An uncompiled StateGraph stands for the graph it compiles to. */
type ${p}Compiled<T> = ${p}Made<T> extends infer G ? (G extends { compile(...args: ${p}Loose[]): infer C } ? C : G) : never;
/** Overwrite markers are how a node bypasses a reducer; they are not part of the value. */
type ${p}Plain<T> = Exclude<T, { __overwrite__: ${p}Loose }>;
/** true when some member of the union T is a message (never when the project's BaseMessage does not resolve: every type would match \`any\`). */
type ${p}HasMessage<T> = ${p}IsAny<${p}BaseMessage> extends true ? false : true extends (T extends ${p}BaseMessage ? true : never) ? true : false;
/** true when some member of the union T is an array of which some element type is a message. */
type ${p}HasMessageList<T> = true extends (T extends ReadonlyArray<infer E> ? (${p}HasMessage<E> extends true ? true : never) : never) ? true : false;
type ${p}Deeper<D extends 0[]> = [0, ...D];
/** A value's type as the schema shows it: messages collapsed, three levels deep at most. */
type ${p}View<T, D extends 0[] = []> = D extends [0, 0, 0]
  ? ${p}Loose
  : T extends unknown
    ? { [K in keyof T]: ${p}IsAny<T[K]> extends true
          ? T[K]
          : ${p}HasMessageList<${p}Plain<T[K]>> extends true
            ? ${p}BaseMessage[]
            : ${p}HasMessage<${p}Plain<T[K]>> extends true
              ? ${p}BaseMessage
              : ${p}View<${p}Plain<T[K]>, ${p}Deeper<D>> }
    : never;
/** A value that is a graph (compiled or a builder), as a subgraph of a node is. */
type ${p}IsGraph<T> = T extends { lg_is_pregel: boolean; invoke(...args: ${p}Loose[]): ${p}Loose }
  ? true
  : T extends { compiled: boolean; compile(...args: ${p}Loose[]): ${p}Loose }
    ? true
    : false;
/** What the compiled graph accepts and gives back (older LangGraph: RunInput/RunOutput). */
type ${p}Accepts<C> = C extends { RunInput: ${p}Loose; RunOutput: infer Out } ? Out : C extends { '~InputType': infer In } ? In : never;
type ${p}Builder<C> = C extends {
  builder: {
    _inputDefinition: infer I extends ${p}StateDefinition;
    _outputDefinition: infer O extends ${p}StateDefinition;
    _configSchema?: infer F extends ${p}StateDefinition | undefined;
  };
}
  ? { input: ${p}UpdateType<I>; output: ${p}StateType<O>; config: ${p}UpdateType<Exclude<F, undefined>> }
  : never;
`;
}

/** The four named types of one graph value (`typeof <expression>`), under `<name>__<part>`. */
export function reflectGraph(name: string, typeofTarget: string): string {
  const p = REFLECT_PREFIX;
  return `
type ${name}__compiled = ${p}Compiled<typeof ${typeofTarget}>;
export type ${name}__state = ${p}View<${p}Accepts<${name}__compiled>>;
export type ${name}__input = ${p}View<${p}NotAny<${p}Builder<${name}__compiled>['input']>>;
export type ${name}__output = ${p}View<${p}NotAny<${p}Builder<${name}__compiled>['output']>>;
export type ${name}__config = ${p}View<${p}NotAny<${p}Builder<${name}__compiled>['config']>>;
`;
}

/** The parts in the order LangGraph's server reports them. */
export const SCHEMA_PARTS = ['state', 'input', 'output', 'config'] as const;
export type SchemaPart = (typeof SCHEMA_PARTS)[number];
