// The causes the run and task queues fail with.
import { defineError } from '../errors.js';

/** A sub-agent task's job failed with a reason that was not an Error (BullMQ passes strings through). */
export const TaskFailedError = defineError('WARREN_TASK_FAILED', 500);
