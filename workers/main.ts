// Worker process. SIGTERM hands running jobs back to the queue at once, so another worker
// resumes them from their last checkpoint; no attempt is spent.
import './plain-env.js';
import { readEnvConfig } from '../src/config/env.js';
import { loadAppConfig } from '../src/config/load-config.js';
import { startFailureMessage, stopOnSignals } from '../src/cli/process-lifecycle.js';
import { createWorkerProcess } from './worker-process.js';

async function main(): Promise<void> {
  const env = readEnvConfig();
  const processHandle = await createWorkerProcess({ env, loaded: loadAppConfig() });
  stopOnSignals({ log: processHandle.log, what: 'worker', close: () => processHandle.close() });
}

main().catch((err: unknown) => {
  process.stderr.write(`warren worker failed to start: ${startFailureMessage(err)}\n`);
  process.exit(1);
});
