// What a test gives `npm start`'s local stack (dist/src/cli/local-stack.js): free ports for the
// API and for the Redis it spawns, its home in the test's temporary folder, and whatever else the
// test sets (WARREN_CONFIG, keys, log settings).
import { freePort } from '../../src/cli/redis-process.js';

export interface LocalStackEnv {
  port: number;
  env: NodeJS.ProcessEnv;
}

export async function localStackEnv(home: string, more: Record<string, string> = {}): Promise<LocalStackEnv> {
  const port = await freePort();
  const redisPort = await freePort();
  return {
    port,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: `redis://127.0.0.1:${redisPort}`, WARREN_HOME: home, LOG_LEVEL: 'warn', ...more },
  };
}
