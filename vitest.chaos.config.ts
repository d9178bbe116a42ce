import { defineConfig } from 'vitest/config';

// The chaos suite (test/chaos/, `npm run test:chaos`): long, one cluster of real processes
// under one fault after another, so kept out of `npm test`.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    // One deployment through every fault, in order.
    sequence: { concurrent: false },
  },
});
