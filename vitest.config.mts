import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native runtime wants a process of its own, not a worker thread.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/helpers/globalSetup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
