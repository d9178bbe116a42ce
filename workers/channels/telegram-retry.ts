// Calls to the Bot API that must get through (workers/channels/retry.ts), with Telegram's view of
// its errors: no answer, a 5xx, a 429 (its `retry_after`) or a 409 may pass; other refusals do not.
import { createRetry } from './retry.js';
import { TelegramError } from './telegram-api.js';

export const telegramRetry = createRetry({
  name: 'telegram',
  isPlatformError: (err) => err instanceof TelegramError,
  transient: (err) => err instanceof TelegramError && err.transient,
  retryAfterMs: (err) => (err instanceof TelegramError && err.retryAfter !== null ? err.retryAfter * 1000 : null),
});

export const { backoffMs, isRetryable, untilDone } = telegramRetry;
