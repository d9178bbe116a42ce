// Worker process. SIGTERM hands running jobs back to the queue at once, so another worker
// resumes them from their last checkpoint; no attempt is spent.
import { readEnvConfig } from '../src/config/env.js';
import { loadAppConfig } from '../src/config/load-config.js';
import { onParentExit } from '../src/cli/parent-watch.js';
import { ConfigError } from '../src/errors.js';
import { createWorkerProcess } from './worker-process.js';

async function main(): Promise<void> {
  const env = readEnvConfig();
  const processHandle = await createWorkerProcess({ env, loaded: loadAppConfig() });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await processHandle.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Started by `npm start`: go down with the local stack even if its signal never arrives.
  if (process.env.WARREN_WATCH_PARENT === '1') onParentExit(() => void stop());
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`warren worker failed to start: ${message}\n`);
  process.exit(1);
});
