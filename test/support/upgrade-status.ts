// A WebSocket upgrade's answer, for tests of who may open one: 101, or the status it was refused with.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';

export function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    // A connection of its own: the server closes a refused upgrade's socket, which a pooled one would reuse.
    const req = httpRequest(url, {
      agent: false,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
