// Schemas shared by the runtime route groups.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema } from '../store/records.js';

/** Ids are plain (they also name folders and Redis hash tags): no braces, slashes or dots. */
export const ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
export const IdSchema = Type.String({ pattern: ID_PATTERN });

export const ThreadParamsSchema = Type.Object({ thread_id: IdSchema });
export type ThreadParams = Static<typeof ThreadParamsSchema>;

export const RunParamsSchema = Type.Object({ thread_id: IdSchema, run_id: IdSchema });
export type RunParams = Static<typeof RunParamsSchema>;

export { JsonObjectSchema };

/**
 * A page offset. Bounded: Redis takes 64-bit offsets, and a number past that (1e308 is an
 * integer to JSON) made ZRANGE fail with a 500 where the client's input was at fault.
 */
export const OffsetSchema = Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 });

export const ErrorSchema = Type.Object({ detail: Type.String() });

/** Bodiless success answers (the LangGraph SDK reads no body from 202 and 204). */
export const noContentResponses = {
  202: Type.Null({ description: 'Accepted' }),
  204: Type.Null({ description: 'No content' }),
} as const;

/** The usual error answers, for the OpenAPI document. */
export const errorResponses = {
  404: ErrorSchema,
  409: ErrorSchema,
  422: ErrorSchema,
} as const;
