// The causes the admin pages refuse with (who may see them is auth's WARREN_ADMIN_REQUIRED).
import { defineError } from '../errors.js';

/** The queue dashboard is read-only (`admin.queues.actions` is off): it refuses every change. */
export const QueueBoardReadOnlyError = defineError('WARREN_QUEUE_BOARD_READ_ONLY', 405);
