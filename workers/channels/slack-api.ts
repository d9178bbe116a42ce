// Slack's Web API through its official client (@slack/web-api), the few methods a chat channel
// needs: auth.test, chat.postMessage, chat.update, the file upload flow
// (files.getUploadURLExternal, the upload, files.completeUploadExternal: the client's
// filesUploadV2), and downloading a user's file from its `url_private` with the bot token. The
// client's own retries are off: a call fails at once as a SlackError, and the channel's retry
// loop waits out an outage (a 429's `Retry-After` included) while its connection is held.
import { ErrorCode, LogLevel, WebClient, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from 'pino';
import { FileTooLargeError } from './chat-messages.js';
import { createRetry } from './retry.js';

/** A refusal from Slack, or a failure to reach it (`code` `no_answer`). */
export class SlackError extends Error {
  constructor(
    readonly method: string,
    /** Slack's error (`channel_not_found`, `ratelimited`), `http_<status>`, or `no_answer`. */
    readonly code: string,
    /** Seconds to wait before trying again (a 429's `Retry-After`). */
    readonly retryAfter: number | null = null,
  ) {
    super(`Slack ${method}: ${code}`);
    this.name = 'SlackError';
  }

  /** Worth trying again: no answer, a 5xx, a rate limit, or one of Slack's own passing troubles. */
  get transient(): boolean {
    return this.code === 'no_answer' || /^http_5\d\d$/.test(this.code) || TRANSIENT_CODES.has(this.code);
  }
}

/** Calls to Slack that must get through (workers/channels/retry.ts). */
export const slackRetry = createRetry({
  name: 'slack',
  isPlatformError: (err) => err instanceof SlackError,
  transient: (err) => err instanceof SlackError && err.transient,
  retryAfterMs: (err) => (err instanceof SlackError && err.retryAfter !== null ? err.retryAfter * 1000 : null),
});

const TRANSIENT_CODES = new Set(['ratelimited', 'rate_limited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** The client's errors, as SlackErrors that tell whether to try again. */
export function slackError(method: string, err: unknown): SlackError {
  if (err instanceof SlackError) return err;
  const e = err as { code?: unknown; retryAfter?: unknown; statusCode?: unknown; data?: { error?: unknown } };
  switch (e?.code) {
    case ErrorCode.RateLimitedError:
      return new SlackError(method, 'ratelimited', typeof e.retryAfter === 'number' ? e.retryAfter : null);
    case ErrorCode.PlatformError:
      return new SlackError(method, typeof e.data?.error === 'string' ? e.data.error : 'unknown_error');
    case ErrorCode.HTTPError:
      return new SlackError(method, `http_${String(e.statusCode)}`);
    default:
      return new SlackError(method, 'no_answer');
  }
}

/** The Slack client's log lines, into the worker's log (the client would print to the console). */
export function slackLogger(log: Logger): SlackLogger {
  let level = LogLevel.WARN;
  const child = log.child({ component: 'slack-sdk' });
  return {
    debug: (...msg: unknown[]) => child.debug(msg.map(String).join(' ')),
    info: (...msg: unknown[]) => child.info(msg.map(String).join(' ')),
    warn: (...msg: unknown[]) => child.warn(msg.map(String).join(' ')),
    // What the client calls an error (a dropped socket, a refused reconnect) is handled here: a warning.
    error: (...msg: unknown[]) => child.warn(msg.map(String).join(' ')),
    setLevel: (value: LogLevel) => void (level = value),
    getLevel: () => level,
    setName: () => undefined,
  };
}

/** Options for every Slack client Warren makes: its address, and no retries of its own. */
export const slackClientOptions = (baseUrl: string) => ({
  slackApiUrl: baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`,
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
  timeout: CALL_TIMEOUT_MS,
});

const CALL_TIMEOUT_MS = 30_000;

export interface SlackIdentity {
  /** The bot's member id (`U…`): mentions of it are stripped, its own messages skipped. */
  userId: string;
  botId: string | null;
}

export interface SlackApi {
  authTest(): Promise<SlackIdentity>;
  /** Posts a message (in the thread `threadTs`, when given); its `ts`. */
  postMessage(channel: string, text: string, threadTs: string | null): Promise<string>;
  update(channel: string, ts: string, text: string): Promise<void>;
  uploadFile(channel: string, threadTs: string | null, filename: string, bytes: Uint8Array): Promise<void>;
  /** A user's file from its `url_private`, refused (FileTooLargeError) above `maxBytes`. */
  download(url: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array>;
}

export function createSlackApi(baseUrl: string, botToken: string, log: Logger): SlackApi {
  const client = new WebClient(botToken, { ...slackClientOptions(baseUrl), logger: slackLogger(log) });
  // The bot token goes only to Slack's file host, or to the configured API's (a local one).
  const fileOrigins = new Set(['https://files.slack.com', new URL(baseUrl).origin]);

  async function call<T>(method: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (err) {
      throw slackError(method, err);
    }
  }

  return {
    async authTest() {
      const result = await call('auth.test', () => client.auth.test());
      if (typeof result.user_id !== 'string') throw new SlackError('auth.test', 'no_user_id');
      return { userId: result.user_id, botId: typeof result.bot_id === 'string' ? result.bot_id : null };
    },

    async postMessage(channel, text, threadTs) {
      const result = await call('chat.postMessage', () => client.chat.postMessage({ channel, text, ...(threadTs ? { thread_ts: threadTs } : {}) }));
      if (typeof result.ts !== 'string') throw new SlackError('chat.postMessage', 'no_ts');
      return result.ts;
    },

    async update(channel, ts, text) {
      await call('chat.update', () => client.chat.update({ channel, ts, text }));
    },

    async uploadFile(channel, threadTs, filename, bytes) {
      const file = Buffer.from(bytes);
      await call('files.uploadV2', () =>
        threadTs ? client.filesUploadV2({ channel_id: channel, thread_ts: threadTs, file, filename, title: filename }) : client.filesUploadV2({ channel_id: channel, file, filename, title: filename }),
      );
    },

    async download(url, maxBytes, signal) {
      let origin: string;
      try {
        origin = new URL(url).origin;
      } catch {
        throw new SlackError('file download', 'bad_url');
      }
      if (!fileOrigins.has(origin)) throw new SlackError('file download', 'not_a_slack_file_url');
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${botToken}` },
        signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS * 4)]),
      }).catch((err: unknown) => {
        if (signal.aborted) throw err;
        throw new SlackError('file download', 'no_answer');
      });
      if (res.status === 429) throw new SlackError('file download', 'ratelimited', Number(res.headers.get('retry-after')) || null);
      if (!res.ok) throw new SlackError('file download', `http_${res.status}`);
      // Without the files:read scope Slack answers with its sign-in page, not the file.
      if ((res.headers.get('content-type') ?? '').startsWith('text/html')) throw new SlackError('file download', 'missing_scope_files_read');
      if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
        await res.body?.cancel();
        throw new FileTooLargeError(maxBytes);
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.byteLength > maxBytes) throw new FileTooLargeError(maxBytes);
      return bytes;
    },
  };
}
