// JSON schemas from the TypeScript types of one graph file, with the TypeScript compiler: the
// file is copied (in memory, beside itself, so its imports resolve as they do for it) with type
// aliases appended that name each graph's input, output, state and config (reflect-source.ts),
// one program is built with the project's tsconfig, and typescript-json-schema turns each alias
// into a draft-07 schema, as LangGraph's server does. This runs in a worker thread
// (schema-worker.ts): building the program takes seconds of CPU.
import path from 'node:path';
import ts from 'typescript';
import { buildGenerator } from 'typescript-json-schema';
import { findSubgraphCandidates } from './find-subgraphs.js';
import { REFLECT_PREFIX, reflectGraph, reflectHelpers, SCHEMA_PARTS, type SchemaPart } from './reflect-source.js';
import type { GraphTypeSchemas, SchemaFileResult, SchemaJob } from './schema-protocol.js';
import { TypeSchemaFailedError } from './type-schemas.errors.js';

type JsonSchema = Record<string, unknown>;

const MAX_ERRORS = 10;
const COPY_MARK = '.__warren_schemas__';

/** The project's tsconfig (found upwards from the graph's folder), made to type-check only. */
function compilerOptions(dir: string): ts.CompilerOptions {
  const base: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const configPath = ts.findConfigFile(dir, ts.sys.fileExists, 'tsconfig.json');
  let project: ts.CompilerOptions = base;
  if (configPath) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (!read.error) project = { ...base, ...ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath)).options };
  }
  // Strict as LangGraph's server compiles them: optional fields and unions come out the same.
  return { ...project, noEmit: true, strict: true, allowUnusedLabels: true, skipLibCheck: true, incremental: false, composite: false, declaration: false };
}

/** A compiler host that also serves the in-memory copies. */
function hostWith(options: ts.CompilerOptions, virtual: ReadonlyMap<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(path.resolve(file)) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(path.resolve(file)) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, onError, create) => {
    const text = virtual.get(path.resolve(file));
    return text === undefined ? getSourceFile.call(host, file, language, onError, create) : ts.createSourceFile(file, text, language, true);
  };
  return host;
}

const isProjectFile = (file: ts.SourceFile) => !file.fileName.split(/[\\/]/).includes('node_modules') && !file.hasNoDefaultLib;

function describe(diagnostic: ts.Diagnostic, dir: string, copy: string, original: string): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  if (!diagnostic.file || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  const file = path.resolve(diagnostic.file.fileName) === copy ? original : diagnostic.file.fileName;
  return `${path.relative(dir, file)}:${line + 1}:${character + 1} ${message}`;
}

// `import("…/node_modules/x")[, {with: …}].` before a type name: the generator means to drop
// it, but misses the form TypeScript prints under NodeNext (with its resolution mode).
const MODULE_QUALIFIER = /import\("[^"]*"(?:,\{(?:[^{}]|\{[^{}]*\})*\})?\)\./g;
const REF_PREFIX = '#/definitions/';

/**
 * Definitions named as LangGraph's server names them: without module qualifiers (unless two would
 * then clash), and `$ref`s to them written plainly (`#/definitions/BaseMessage<…>`), not URI-encoded.
 */
function tidyDefinitions(schema: JsonSchema): JsonSchema {
  const definitions = (schema.definitions ?? {}) as Record<string, unknown>;
  const shortNames = Object.keys(definitions).map((key) => [key, key.replace(MODULE_QUALIFIER, '')] as const);
  const taken = new Map<string, number>();
  for (const [, short] of shortNames) taken.set(short, (taken.get(short) ?? 0) + 1);
  const rename = new Map(shortNames.map(([key, short]) => [key, taken.get(short) === 1 ? short : key]));
  const refTarget = (ref: string): string => {
    let name = ref.slice(REF_PREFIX.length);
    try {
      name = decodeURIComponent(name);
    } catch {
      // Not URI-encoded after all: the name is used as written.
    }
    return REF_PREFIX + (rename.get(name) ?? name);
  };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' && inner.startsWith(REF_PREFIX) ? refTarget(inner) : rewrite(inner)]),
    );
  };
  const { definitions: _definitions, ...rest } = schema;
  const tidied = rewrite(rest) as JsonSchema;
  if (schema.definitions === undefined) return tidied;
  return { ...tidied, definitions: Object.fromEntries(Object.entries(definitions).map(([key, value]) => [rename.get(key) ?? key, rewrite(value)])) };
}

/** The schemas of the graphs `job` names, with their subgraphs. */
export function extractTypeSchemas(job: SchemaJob): SchemaFileResult {
  const original = path.resolve(job.file);
  const dir = path.dirname(original);
  const ext = path.extname(original);
  const base = path.basename(original, ext);
  const copy = path.join(dir, `${base}${COPY_MARK}${ext}`);
  const selfSpecifier = `./${base}${COPY_MARK}${ext.replace('ts', 'js')}`;
  const text = ts.sys.readFile(original);
  if (text === undefined) throw new TypeSchemaFailedError(`${original} cannot be read`);

  const parsed = ts.createSourceFile(original, text, ts.ScriptTarget.Latest, true);
  const p = REFLECT_PREFIX;
  const parts: string[] = [text, `\nimport type * as ${p}self from '${selfSpecifier}';`, reflectHelpers()];
  const roots = job.exports.map((name, index) => ({ name, alias: `${p}e${index}` }));
  for (const root of roots) parts.push(reflectGraph(root.alias, `${p}self[${JSON.stringify(root.name)}]`));
  const candidates = new Map(job.exports.map((name) => [name, findSubgraphCandidates(parsed, name)]));
  const identifiers = [...new Set([...candidates.values()].flat().flatMap((candidate) => candidate.identifiers))];
  const aliasOf = new Map(identifiers.map((name, index) => [name, `${p}v${index}`]));
  for (const [name, alias] of aliasOf) {
    parts.push(reflectGraph(alias, name), `export type ${alias}__isgraph = ${p}IsGraph<typeof ${name}>;\n`);
  }

  const options = compilerOptions(dir);
  const program = ts.createProgram({ rootNames: [copy], options, host: hostWith(options, new Map([[copy, parts.join('\n')]])) });
  const copyFile = program.getSourceFile(copy);
  if (!copyFile) throw new TypeSchemaFailedError(`${original} could not be compiled`);
  const projectFiles = program.getSourceFiles().filter(isProjectFile);
  const syntaxErrors = projectFiles.flatMap((file) => [...program.getSyntacticDiagnostics(file)]);
  const errors = [...syntaxErrors, ...program.getSemanticDiagnostics(copyFile)]
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .slice(0, MAX_ERRORS)
    .map((d) => describe(d, dir, copy, original));
  if (syntaxErrors.length > 0) return { graphs: {}, errors, broken: true };

  const checker = program.getTypeChecker();
  const isGraph = (alias: string): boolean => {
    const decl = copyFile.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === `${alias}__isgraph`);
    return decl !== undefined && checker.typeToString(checker.getTypeAtLocation(decl)) === 'true';
  };
  const generator = buildGenerator(program, { ignoreErrors: true });
  if (!generator) throw new TypeSchemaFailedError(`${original}: the schema generator could not start`);
  const schemaOf = (symbol: string): JsonSchema | null => {
    try {
      return tidyDefinitions(generator.getSchemaForSymbol(symbol) as JsonSchema);
    } catch {
      // A type the generator cannot express (never, a function): LangGraph's server gives none either.
      return null;
    }
  };
  const schemasOf = (alias: string): GraphTypeSchemas =>
    Object.fromEntries(SCHEMA_PARTS.map((part) => [part, schemaOf(`${alias}__${part}`)])) as GraphTypeSchemas;

  const graphs: SchemaFileResult['graphs'] = {};
  for (const root of roots) {
    const found: Record<string, GraphTypeSchemas> = { [root.name]: schemasOf(root.alias) };
    for (const candidate of candidates.get(root.name) ?? []) {
      const parent = candidate.namespace.slice(0, candidate.namespace.lastIndexOf('|'));
      if (!(parent in found)) continue; // under a node that is no subgraph
      const graph = candidate.identifiers.find((name) => isGraph(aliasOf.get(name) ?? ''));
      if (graph && !(candidate.namespace in found)) found[candidate.namespace] = schemasOf(aliasOf.get(graph) ?? '');
    }
    graphs[root.name] = found;
  }
  return { graphs, errors, broken: false };
}
