// The causes the cron routes, the cron store and the schedule checks refuse with.
import { defineError } from '../errors.js';

/** The cron does not exist, or is another user's. */
export const CronNotFoundError = defineError('WARREN_CRON_NOT_FOUND', 404);
/** `schedule` is not a cron expression BullMQ could follow (5 fields, or 6 with seconds first). */
export const CronScheduleInvalidError = defineError('WARREN_CRON_SCHEDULE_INVALID', 422);
/** `timezone` is not an IANA time zone. */
export const CronTimezoneInvalidError = defineError('WARREN_CRON_TIMEZONE_INVALID', 422);
/** An option the cron's kind does not take: `on_run_completed` on a thread cron (only a stateless cron has a thread per run). */
export const CronOptionInvalidError = defineError('WARREN_CRON_OPTION_INVALID', 422);
/** A cron's record kept changing under a compare-and-set, too many times in a row to apply a change. */
export const CronContendedError = defineError('WARREN_CRON_CONTENDED', 500);
/** A scheduled task's schedule is not one it can have: an unknown `schedule_type`, a `schedule_spec` without its key (or with another), not 5 cron fields, a `run_at` not in the future. */
export const TaskScheduleInvalidError = defineError('WARREN_TASK_SCHEDULE_INVALID', 422);
/** A scheduled task's `context_mode` is unknown, or `reuse_thread` comes without a `thread_id`. */
export const TaskContextInvalidError = defineError('WARREN_TASK_CONTEXT_INVALID', 422);
/** A scheduled-task change Warren cannot make on the cron underneath: moving it to another thread, or between a thread and a thread per run. */
export const TaskChangeUnsupportedError = defineError('WARREN_TASK_CHANGE_UNSUPPORTED', 422);
