// A pass-through in front of the scripted model for fan-out and idle connections. It can hold
// every answer until the bench opens it (so all clients have joined before the first token), and
// it stamps each streamed token with the moment it left here (performance.now() of this process,
// which is also the clients' process): a client that receives token "@<t>" at time now knows its
// end-to-end delivery lag, on either server.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Gate {
  /** Base URL for the graph's gated model client. */
  readonly url: string;
  /** Requests waiting at the gate. */
  waiting(): number;
  hold(): void;
  open(): void;
  close(): Promise<void>;
}

const STAMP = /"delta":\{"content":"((?:[^"\\]|\\.)+)"/;

/** Rewrites a token's content to its send-time stamp; other lines pass unchanged. */
function stampLine(line: string): string {
  if (!line.startsWith('data: {')) return line;
  return line.replace(STAMP, () => `"delta":{"content":" @${performance.now().toFixed(3)}"`);
}

function relay(upstream: IncomingMessage, res: ServerResponse): void {
  res.writeHead(upstream.statusCode ?? 502, upstream.headers);
  let pending = '';
  upstream.setEncoding('utf8');
  upstream.on('data', (chunk: string) => {
    pending += chunk;
    const cut = pending.lastIndexOf('\n');
    if (cut < 0) return;
    const complete = pending.slice(0, cut + 1);
    pending = pending.slice(cut + 1);
    res.write(complete.split('\n').map(stampLine).join('\n'));
  });
  upstream.on('end', () => res.end(pending));
  upstream.on('error', () => res.destroy());
}

export async function startGate(upstreamUrl: string): Promise<Gate> {
  const upstream = new URL(upstreamUrl);
  let release: (() => void) | null = null;
  let gate: Promise<void> = Promise.resolve();
  let waiting = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      waiting++;
      void gate.then(() => {
        waiting--;
        const forward = request(
          { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => relay(answer, res),
        );
        forward.on('error', () => res.destroy());
        forward.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    waiting: () => waiting,
    hold() {
      if (release) return;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    open() {
      release?.();
      release = null;
      gate = Promise.resolve();
    },
    close: () =>
      new Promise<void>((resolve) => {
        release?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
