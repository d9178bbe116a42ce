// Readable log lines for a person at a terminal: `12:03:04.120 INFO  warren-api  api started
// port=2026`. Processes write JSON (one object a line) unless stdout is a terminal or
// LOG_FORMAT=pretty; LOG_FORMAT=json forces JSON. The lines are formatted from pino's finished
// JSON, so redaction and secret masking have already happened.
import type { DestinationStream } from 'pino';

export type LogFormat = 'json' | 'pretty';

export function logFormat(env: NodeJS.ProcessEnv = process.env, isTty = process.stdout.isTTY === true): LogFormat {
  if (env.LOG_FORMAT === 'pretty' || env.LOG_FORMAT === 'json') return env.LOG_FORMAT;
  return isTty ? 'pretty' : 'json';
}

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

/** Fields every line has, shown in the line's head or left out as noise. */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

interface ErrorFields {
  message?: string;
  stack?: string;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** What a Fastify request or reply object says in a few words. */
function httpField(key: string, v: unknown): string | null {
  if (key === 'req' && v && typeof v === 'object') {
    const req = v as { method?: string; url?: string };
    return `${req.method ?? '?'} ${req.url ?? '?'}`;
  }
  if (key === 'res' && v && typeof v === 'object') return `status=${(v as { statusCode?: number }).statusCode ?? '?'}`;
  if (key === 'responseTime' && typeof v === 'number') return `${v.toFixed(1)}ms`;
  return null;
}

/** One JSON line from pino as one readable line (plus an error's stack under it). */
export function prettyLine(json: string, colors: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const [label, color] = LEVELS[entry.level as number] ?? [String(entry.level).padEnd(5), ''];
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const parts: string[] = [];
  let stack = '';
  for (const [key, v] of Object.entries(entry)) {
    if (HEAD_FIELDS.has(key) || v === undefined) continue;
    const http = httpField(key, v);
    if (http !== null) {
      parts.push(http);
    } else if (key === 'err' && v && typeof v === 'object') {
      const err = v as ErrorFields;
      parts.push(`err=${value(err.message ?? '')}`);
      if (err.stack) stack = `\n${err.stack.replace(/^/gm, '    ')}`;
    } else {
      parts.push(`${key}=${value(v)}`);
    }
  }
  const level = colors ? `${color}${label}${RESET}` : label;
  const name = typeof entry.name === 'string' ? entry.name : '';
  const fields = parts.length === 0 ? '' : colors ? `  ${DIM}${parts.join(' ')}${RESET}` : `  ${parts.join(' ')}`;
  return `${time} ${level} ${name}  ${String(entry.msg ?? '')}${fields}${stack}\n`;
}

/** A pino destination that writes readable lines to `out` (stdout by default). */
export function prettyDestination(out: NodeJS.WritableStream = process.stdout, colors = process.stdout.isTTY === true): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line, colors)) };
}

/** Where a process logs by default: undefined for pino's own JSON to stdout. */
export function defaultLogDestination(env: NodeJS.ProcessEnv = process.env): DestinationStream | undefined {
  return logFormat(env) === 'pretty' ? prettyDestination() : undefined;
}
