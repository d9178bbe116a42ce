// Schemas shared by the gateway route groups.
import { Type, type Static } from 'typebox';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

export const ThreadParamsSchema = Type.Object({ thread_id: Type.String({ pattern: THREAD_ID_PATTERN }) });
export type ThreadParams = Static<typeof ThreadParamsSchema>;

export const ErrorSchema = Type.Object({ detail: Type.String() });

export const SuccessSchema = Type.Object({ success: Type.Boolean(), message: Type.String() });
export type Success = Static<typeof SuccessSchema>;

/** The usual error answers, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorSchema,
  404: ErrorSchema,
  422: ErrorSchema,
} as const;

/** Routes that write files also answer 507 when the disk (or its quota) is full. */
export const writeErrorResponses = { ...errorResponses, 507: ErrorSchema } as const;

/** A write under a lock on shared files may also answer 503: the lock was not had in time. */
export const lockedWriteResponses = { ...writeErrorResponses, 503: ErrorSchema } as const;
