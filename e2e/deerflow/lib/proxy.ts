// The one origin the browser sees, as DeerFlow's nginx gives it: /api/* to the backend (Warren
// serves both its LangGraph routes under /api/langgraph and the gateway under /api, so paths go
// through unchanged), everything else to the Next.js server. Streams pass through unbuffered.
// With `deerflowNginx`, /api/langgraph/* is rewritten to /api/* first, as DeerFlow's own
// docker/nginx/nginx.conf (f1f4af99b) does: the UI's LangGraph calls then reach the gateway's twins,
// which is what a DeerFlow deployment that keeps its nginx sends to Warren.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

function targetOf(req: IncomingMessage, backend: URL, frontend: URL): URL {
  const pathname = (req.url ?? '/').split('?')[0] ?? '/';
  return pathname === '/api' || pathname.startsWith('/api/') ? backend : frontend;
}

const LANGGRAPH_PREFIX = '/api/langgraph/';

export async function startProxy(backendUrl: string, frontendUrl: string, options: { deerflowNginx?: boolean } = {}): Promise<Proxy> {
  const backend = new URL(backendUrl);
  const frontend = new URL(frontendUrl);
  const rewrite = (req: IncomingMessage): void => {
    if (options.deerflowNginx && req.url?.startsWith(LANGGRAPH_PREFIX)) req.url = `/api/${req.url.slice(LANGGRAPH_PREFIX.length)}`;
  };
  const server: Server = createServer((req, res) => {
    rewrite(req);
    const target = targetOf(req, backend, frontend);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'http', 'x-forwarded-host': req.headers.host ?? '' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (res.headersSent) return void res.destroy(err);
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `proxy: ${err.message}` }));
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  // WebSocket upgrades (Warren's /api/langgraph streams, Next.js in dev) are spliced at the socket level.
  server.on('upgrade', (req, socket, head) => {
    rewrite(req);
    const target = targetOf(req, backend, frontend);
    const up = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) up.write(head);
      up.pipe(socket).pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
