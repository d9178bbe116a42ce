// API process: read config, build the server, listen. SIGTERM drains: stop accepting, end the
// open streams (clients resume on any replica with Last-Event-ID), close connections.
import { createApiServer } from './api-server.js';
import { readEnvConfig } from './config/env.js';
import { loadAppConfig } from './config/load-config.js';
import { startFailureMessage, stopOnSignals } from './cli/process-lifecycle.js';

async function main(): Promise<void> {
  const env = readEnvConfig();
  const loaded = loadAppConfig();
  const server = await createApiServer({ env, loaded });
  try {
    await server.app.listen({ port: env.port, host: env.host, backlog: env.listenBacklog });
  } catch (err) {
    // Nothing is serving yet: let go of Redis so the process can exit at once.
    await server.close().catch(() => undefined); // the listen error below is the one worth reporting
    throw err;
  }
  server.app.log.info({ port: env.port, host: env.host, pid: process.pid, config: loaded.file }, 'api started');
  stopOnSignals({ log: server.app.log, what: 'api', close: () => server.close() });
}

main().catch((err: unknown) => {
  process.stderr.write(`warren api failed to start: ${startFailureMessage(err)}\n`);
  process.exit(1);
});
