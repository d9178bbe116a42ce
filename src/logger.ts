// pino options shared by both processes. Secrets are redacted wherever they might be logged.
import pino, { type Logger, type LoggerOptions } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.api_key',
  '*.apiKey',
  '*.password',
  '*.client_secret',
  '*.refresh_token',
  '*.access_token',
  '*.env',
  '*.headers',
];

export function loggerOptions(level: string, name: string): LoggerOptions {
  return {
    level,
    name,
    redact: { paths: REDACT_PATHS, censor: '***' },
  };
}

export function createLogger(level: string, name: string): Logger {
  return pino(loggerOptions(level, name));
}
