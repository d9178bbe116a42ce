// Why a graph's schemas could not be derived from its TypeScript types. Never a client's answer:
// the route logs it and answers the graph without schemas, as LangGraph's server does.
import { defineError } from '../../errors.js';

/** The TypeScript compiler or the schema generator failed on a graph file, or took too long. */
export const TypeSchemaFailedError = defineError('WARREN_TYPE_SCHEMA_FAILED', 500);
