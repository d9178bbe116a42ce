// pino options shared by both processes. Secrets are kept out of the logs twice over: fields
// with secret names are censored, and the configured secret values themselves are masked
// wherever they turn up (an upstream error message that echoes a key, a stack trace).
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { defaultLogDestination } from './log-format.js';

// pino's wildcards match one level only, so both depths a secret may sit at are listed: the
// top of a log object (`log.info({ api_key })`) and one level down (`{ model: { api_key } }`).
// Nothing logs whole configuration objects, and deeper wildcards would cost every log line.
const SECRET_KEYS = [
  'api_key',
  'apiKey',
  'api_keys',
  'apiKeys',
  'search_api_key',
  'password',
  'bot_token',
  'client_secret',
  'refresh_token',
  'access_token',
  'authorization',
  '["x-api-key"]',
  'env',
  'headers',
];

const at = (prefix: string, key: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  ...SECRET_KEYS.filter((key) => !key.startsWith('[')),
  ...SECRET_KEYS.map((key) => at('*', key)),
];

export const CENSOR = '***';

/** Shorter values are not masked: replacing every `abc` in every line would ruin the logs. */
export const MIN_MASKED_SECRET_LENGTH = 8;

export interface LoggerExtras {
  /** Receives the JSON lines instead of stdout (tests read them). */
  stream?: DestinationStream;
  /** Values masked wherever they appear in a line: API keys, model keys and the like. */
  secrets?: readonly string[];
}

/**
 * A function that masks `secrets` in a finished JSON line. A value is looked for as written
 * and as JSON escapes it (a key may hold `"` or `\`), longest first so that a secret containing
 * another is masked whole.
 */
export function secretMasker(secrets: readonly string[]): ((line: string) => string) | null {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_MASKED_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return null;
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (line) => {
    let out = line;
    for (const form of ordered) if (out.includes(form)) out = out.replaceAll(form, CENSOR);
    return out;
  };
}

export function loggerOptions(level: string, name: string, secrets: readonly string[] = []): LoggerOptions {
  const mask = secretMasker(secrets);
  return {
    level,
    name,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    ...(mask ? { hooks: { streamWrite: mask } } : {}),
  };
}

/** Fastify's `logger.stream` option for the default destination (readable lines at a terminal). */
export function logStreamOption(): { stream?: DestinationStream } {
  const stream = defaultLogDestination();
  return stream ? { stream } : {};
}

export function createLogger(level: string, name: string, extras: LoggerExtras = {}): Logger {
  const options = loggerOptions(level, name, extras.secrets);
  const stream = extras.stream ?? defaultLogDestination();
  return stream ? pino(options, stream) : pino(options);
}
