// The causes POST /api/input-polish refuses with, under DeerFlow's statuses and messages.
import { defineError } from '../errors.js';

/** `input_polish.enabled` is off in config.yaml: DeerFlow answers 404, so the UI hides the button. */
export const InputPolishDisabledError = defineError('WARREN_INPUT_POLISH_DISABLED', 404);
/** The text is empty, or only spaces. */
export const InputTextEmptyError = defineError('WARREN_INPUT_TEXT_EMPTY', 400);
/** The text is longer than `input_polish.max_chars`. */
export const InputTextTooLongError = defineError('WARREN_INPUT_TEXT_TOO_LONG', 400);
/** No worker rewrote it in time, the model failed, or it answered nothing: the draft is kept, try again. */
export const InputPolishFailedError = defineError('WARREN_INPUT_POLISH_FAILED', 503);
