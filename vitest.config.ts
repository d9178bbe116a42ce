import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The chaos suite runs on its own (vitest.chaos.config.ts, `npm run test:chaos`).
    exclude: ['**/node_modules/**', 'test/chaos/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more parallel files only add contention with Redis and the workers.
    maxWorkers: 2,
  },
});
