// The logger LangGraph.js graphs reach through `getLogger()` from `@langchain/langgraph-sdk/logging`.
// That helper reads a global the LangGraph server registers (and throws "Logger not available"
// without it); Warren registers one backed by its own pino logger, so a graph's log lines land
// in the process log with the rest. The SDK's interface is winston's: leveled methods taking a
// message with metadata, or one info object, and returning the logger.
import type { Logger } from 'pino';

const SDK_LOGGER = Symbol.for('langgraph.api.sdk-logger');

type PinoLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** winston's npm and cli levels, onto pino's. */
const LEVELS: Readonly<Record<string, PinoLevel>> = {
  error: 'error',
  warn: 'warn',
  help: 'info',
  data: 'info',
  info: 'info',
  prompt: 'info',
  input: 'info',
  http: 'debug',
  verbose: 'debug',
  debug: 'debug',
  silly: 'trace',
};

type LeveledLogMethod = (message: unknown, ...meta: unknown[]) => SdkLogger;
export type SdkLogger = Record<keyof typeof LEVELS, LeveledLogMethod>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);

function logLine(log: Logger, level: PinoLevel, message: unknown, meta: unknown[]): void {
  if (isObject(message)) {
    // One info object: `{message, ...fields}`, as winston takes it.
    const { message: text, ...fields } = message;
    log[level](fields, typeof text === 'string' ? text : JSON.stringify(text ?? ''));
    return;
  }
  const fields: Record<string, unknown> = {};
  const extra: unknown[] = [];
  for (const item of meta) {
    if (item instanceof Error) fields.err = item;
    else if (isObject(item)) Object.assign(fields, item);
    else extra.push(item);
  }
  if (extra.length > 0) fields.meta = extra;
  const text = typeof message === 'string' ? message : message instanceof Error ? message.message : JSON.stringify(message);
  if (message instanceof Error) fields.err = message;
  log[level](fields, text);
}

export function createSdkLogger(log: Logger): SdkLogger {
  const logger = {} as SdkLogger;
  for (const [name, level] of Object.entries(LEVELS)) {
    logger[name] = (message, ...meta) => {
      logLine(log, level, message, meta);
      return logger;
    };
  }
  return logger;
}

/** Makes `getLogger()` work for every graph this process loads. */
export function registerSdkLogger(log: Logger): void {
  (globalThis as Record<symbol, unknown>)[SDK_LOGGER] = createSdkLogger(log.child({ component: 'graph' }));
}
