// Several API replicas and workers in this process, sharing one Redis, one WARREN_HOME, one
// config and one queue, as a deployment's replicas do: what one replica writes, the others must
// see, and nothing may rest on a process's memory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createApiServer, type ApiServer } from '../../src/api-server.js';
import type { EnvConfig } from '../../src/config/env.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { createWorkerProcess, type WorkerProcess } from '../../workers/worker-process.js';
import { trackedDir } from './leftovers.js';
import { testEnv } from './stack.js';

export interface ReplicaStack {
  /** http://127.0.0.1:<port> of each API replica. */
  urls: string[];
  apis: ApiServer[];
  workers: WorkerProcess[];
  env: EnvConfig;
  close(): Promise<void>;
}

export async function startReplicas(options: { apis: number; workers: number; config: Record<string, unknown>; env?: Partial<EnvConfig> }): Promise<ReplicaStack> {
  const home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-replicas-')));
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify(options.config));
  const env = testEnv(home, options.env);
  const apis: ApiServer[] = [];
  const workers: WorkerProcess[] = [];
  const urls: string[] = [];
  const close = async () => {
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(apis.map((a) => a.close()));
    rmSync(home, { recursive: true, force: true });
  };
  try {
    // Inside the try: a config the test means to be refused still leaves no folder behind.
    const loaded = loadAppConfig({ WARREN_CONFIG: configFile });
    for (let i = 0; i < options.apis; i++) {
      const api = await createApiServer({ env: { ...env, instanceId: `api-${i}` }, loaded });
      apis.push(api);
      urls.push(await api.app.listen({ port: 0, host: '127.0.0.1' }));
    }
    for (let i = 0; i < options.workers; i++) workers.push(await createWorkerProcess({ env: { ...env, instanceId: `worker-${i}` }, loaded }));
  } catch (err) {
    await close();
    throw err;
  }
  return { urls, apis, workers, env, close };
}
