// The causes the record stores refuse with, and the faults they meet in what Redis holds. Other
// areas throw these too when a record they were asked for does not exist (or is another user's:
// that answers 404 as well, never 403).
import { defineError } from '../errors.js';

/** The thread does not exist, or is another user's. */
export const ThreadNotFoundError = defineError('WARREN_THREAD_NOT_FOUND', 404);
/** The run does not exist on that thread, or its thread is another user's. */
export const RunNotFoundError = defineError('WARREN_RUN_NOT_FOUND', 404);
/** The assistant does not exist, or is another user's. */
export const AssistantNotFoundError = defineError('WARREN_ASSISTANT_NOT_FOUND', 404);
/** A thread with that id exists already (`if_exists: raise`). */
export const ThreadExistsError = defineError('WARREN_THREAD_EXISTS', 409);
/** A run is pending or running on the thread, and what was asked must wait for none. */
export const ThreadBusyError = defineError('WARREN_THREAD_BUSY', 409);
/** A store search's `filter` uses an operator LangGraph does not define, or `$in`/`$nin` without a list. */
export const StoreFilterInvalidError = defineError('WARREN_STORE_FILTER_INVALID', 422);
/** Another replica's change to the same shared file did not finish in time; retrying may work. */
export const FileLockBusyError = defineError('WARREN_FILE_LOCK_BUSY', 503);
/** The lock on a shared file lapsed before the change was saved (the holder stalled); nothing was written. */
export const FileLockLapsedError = defineError('WARREN_FILE_LOCK_LAPSED', 503);
/** A checkpoint (its value, metadata or a pending write) as stored in Redis cannot be read back. */
export const CheckpointCorruptError = defineError('WARREN_CHECKPOINT_CORRUPT', 500);
/** A run's events waiting for Redis (an outage) passed the writer's bound; the worker gives the run up. */
export const StreamBufferFullError = defineError('WARREN_STREAM_BUFFER_FULL', 503);
/** A Redis MULTI came back aborted (no replies), which a transaction without WATCH never should. */
export const RedisTransactionAbortedError = defineError('WARREN_REDIS_TRANSACTION_ABORTED', 500);
/** The embedding model answered vectors of another length than `store.index.dims` says. */
export const EmbeddingDimsMismatchError = defineError('WARREN_EMBEDDING_DIMS_MISMATCH', 500);
