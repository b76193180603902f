import path from 'node:path';
import { defineConfig } from 'vitest/config';

/** The examples import baton by its package name, as a service does; in this checkout that is the sources (as tsconfig.json's paths say). */
const source = (file: string) => path.resolve(import.meta.dirname, file);

export default defineConfig({
  resolve: {
    alias: [
      { find: /^baton-agents$/, replacement: source('src/index.ts') },
      { find: /^baton-agents\/workflow$/, replacement: source('src/workflow.ts') },
      { find: /^baton-agents\/worker$/, replacement: source('src/worker/index.ts') },
      { find: /^baton-agents\/server$/, replacement: source('src/server/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native runtime wants a process of its own, not a worker thread.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/helpers/globalSetup.ts'],
    // The console output of a passing test (the worker's warnings about failures a test provokes on
    // purpose, a command's own output) is dropped; a failing test's is shown with its failure.
    silent: 'passed-only',
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
