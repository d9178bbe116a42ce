// A worker's metrics listener: `GET /metrics` in the Prometheus text format, nothing else. Off
// unless a port is configured (config.yaml `metrics.worker_port`, WARREN_WORKER_METRICS_PORT).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { PROMETHEUS_CONTENT_TYPE } from '../src/metrics/registry.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(render: () => Promise<string>, port: number, host: string, log: Logger): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Only GET /metrics is served here.' }));
      return;
    }
    render().then(
      (body) => res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE }).end(body),
      (err: unknown) => {
        log.warn({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Metrics could not be collected.' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  log.info({ port: bound, host }, 'worker metrics listening');
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
