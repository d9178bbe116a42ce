// The causes the record stores refuse with. Other areas throw these too when a record they were
// asked for does not exist (or is another user's: that answers 404 as well, never 403).
import { defineError } from '../errors.js';

export const ThreadNotFoundError = defineError('WARREN_THREAD_NOT_FOUND', 404);
export const RunNotFoundError = defineError('WARREN_RUN_NOT_FOUND', 404);
export const AssistantNotFoundError = defineError('WARREN_ASSISTANT_NOT_FOUND', 404);
