// The causes the memory routes refuse with.
import { defineError } from '../errors.js';

/** No fact with that id in the caller's memory. */
export const MemoryFactNotFoundError = defineError('WARREN_MEMORY_FACT_NOT_FOUND', 404);
/** A fact with the same content (case and spaces aside) is in the memory already. */
export const MemoryFactDuplicateError = defineError('WARREN_MEMORY_FACT_DUPLICATE', 409);
/** A fact's content is empty. */
export const MemoryFactEmptyError = defineError('WARREN_MEMORY_FACT_EMPTY', 422);
/** The memory is full (`memory.max_facts`) of more confident facts: the new one would be dropped at once. */
export const MemoryFullError = defineError('WARREN_MEMORY_FULL', 409);
/** An imported memory breaks a rule: more facts than `memory.max_facts`, or two facts with one id. */
export const MemoryImportInvalidError = defineError('WARREN_MEMORY_IMPORT_INVALID', 422);
