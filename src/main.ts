// API process: read config, build the server, listen. SIGTERM drains: stop accepting, end the
// open streams (clients resume on any replica with Last-Event-ID), close connections.
import { createApiServer } from './api-server.js';
import { readEnvConfig } from './config/env.js';
import { loadAppConfig } from './config/load-config.js';
import { onParentExit } from './cli/parent-watch.js';
import { ConfigError } from './errors.js';

async function main(): Promise<void> {
  const env = readEnvConfig();
  const loaded = loadAppConfig();
  const server = await createApiServer({ env, loaded });
  await server.app.listen({ port: env.port, host: env.host, backlog: env.listenBacklog });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'api stopping');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Started by `npm start`: go down with the local stack even if its signal never arrives.
  if (process.env.WARREN_WATCH_PARENT === '1') onParentExit(() => void stop('parent exited'));
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`warren api failed to start: ${message}\n`);
  process.exit(1);
});
