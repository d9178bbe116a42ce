// Logs an operator can use: readable lines at a terminal and JSON elsewhere, health and metrics
// scrapes at debug (they come every few seconds), other requests at info.
import { describe, expect, it } from 'vitest';
import { logFormat, prettyLine } from '../../src/log-format.js';
import { startGatewayApp } from '../gateway/gateway-app.js';

describe('log format', () => {
  it('is pretty at a terminal or when asked, JSON otherwise', () => {
    expect(logFormat({}, true)).toBe('pretty');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
  });

  it('turns a JSON line into time, level, name, message and fields, with an error stack under it', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      pid: 1,
      hostname: 'h',
      name: 'warren-api',
      msg: 'redis connection error',
      connection: 'api:command',
      err: { message: 'connect ECONNREFUSED', stack: 'Error: connect ECONNREFUSED\n    at x' },
    });
    expect(prettyLine(line, false)).toBe(
      '03:04:05.006 WARN  warren-api  redis connection error  connection=api:command err="connect ECONNREFUSED"\n' +
        '    Error: connect ECONNREFUSED\n        at x\n',
    );
    const request = JSON.stringify({ level: 30, time: 0, name: 'warren-api', msg: 'request completed', request_id: 'r1', res: { statusCode: 200 }, responseTime: 1.234 });
    expect(prettyLine(request, false)).toBe('00:00:00.000 INFO  warren-api  request completed  request_id=r1 status=200 1.2ms\n');
    expect(prettyLine('not json', false)).toBe('not json\n');
  });
});

describe('request lines', () => {
  it('logs health, readiness and metrics scrapes at debug, other requests at info', async () => {
    const lines: { level: number; msg: string; req?: { url: string }; request_id?: string }[] = [];
    const gw = await startGatewayApp({ logStream: { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) } });
    try {
      for (const url of ['/ok', '/health', '/ready', '/metrics', '/api/models']) await gw.api.app.inject({ method: 'GET', url });
      const levelOf = (url: string) => {
        const incoming = lines.find((l) => l.msg === 'incoming request' && l.req?.url === url);
        const completed = lines.find((l) => l.msg === 'request completed' && l.request_id === incoming?.request_id);
        return [incoming?.level, completed?.level];
      };
      for (const url of ['/ok', '/health', '/ready', '/metrics']) expect(levelOf(url), url).toEqual([20, 20]);
      expect(levelOf('/api/models')).toEqual([30, 30]);
    } finally {
      await gw.close();
    }
  });
});
