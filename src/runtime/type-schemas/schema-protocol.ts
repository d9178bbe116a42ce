// What type-schemas.ts and its worker thread pass each other: the job (workerData) and one reply.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { TypeSchemaFailedError } from './type-schemas.errors.js';

const JsonSchemaOrNull = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const SchemaJobSchema = Type.Object({
  file: Type.String({ minLength: 1 }),
  exports: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
});
export type SchemaJob = Static<typeof SchemaJobSchema>;

export const GraphTypeSchemasSchema = Type.Object({ state: JsonSchemaOrNull, input: JsonSchemaOrNull, output: JsonSchemaOrNull, config: JsonSchemaOrNull });
export type GraphTypeSchemas = Static<typeof GraphTypeSchemasSchema>;

export const SchemaFileResultSchema = Type.Object({
  /** export → graph name (`graph`, `graph|child`, …) → its schemas. */
  graphs: Type.Record(Type.String(), Type.Record(Type.String(), GraphTypeSchemasSchema)),
  /** The compiler's errors in the project's own files, `file:line:col message`, the first few. */
  errors: Type.Array(Type.String()),
  /** A project file does not parse: its types mean nothing, so no schemas are given. */
  broken: Type.Boolean(),
});
export type SchemaFileResult = Static<typeof SchemaFileResultSchema>;

export const SchemaWorkerReplySchema = Type.Union([
  Type.Object({ ok: Type.Literal(true), result: SchemaFileResultSchema }),
  Type.Object({ ok: Type.Literal(false), message: Type.String() }),
]);
export type SchemaWorkerReply = Static<typeof SchemaWorkerReplySchema>;

const job = Compile(SchemaJobSchema);
const reply = Compile(SchemaWorkerReplySchema);

export function parseSchemaJob(value: unknown): SchemaJob {
  if (!job.Check(value)) throw new TypeSchemaFailedError('The schema worker was given no graph file to read.');
  return value;
}

/** A reply from the worker, or null when it is not one. */
export const parseSchemaReply = (value: unknown): SchemaWorkerReply | null => (reply.Check(value) ? value : null);
