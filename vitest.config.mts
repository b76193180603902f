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
      { find: /^baton-agents\/agents$/, replacement: source('src/agents/index.ts') },
      { find: /^baton-agents\/models$/, replacement: source('src/models/index.ts') },
      { find: /^baton-agents\/client$/, replacement: source('src/client/index.ts') },
      { find: /^baton-agents\/audit$/, replacement: source('src/audit/index.ts') },
      { find: /^baton-agents\/eval$/, replacement: source('src/eval/index.ts') },
      { find: /^baton-agents\/payloads$/, replacement: source('src/payloads/index.ts') },
      { find: /^baton-agents\/signing$/, replacement: source('src/client/signing/index.ts') },
      { find: /^baton-agents\/streams$/, replacement: source('src/streams/index.ts') },
      { find: /^baton-agents\/economics$/, replacement: source('src/economics/index.ts') },
      { find: /^baton-agents\/mcp$/, replacement: source('src/mcp/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native runtime wants a process of its own, not a worker thread.
    pool: 'forks',
    // Three files at a time on two cores: a file that waits (on a timer, a server, a browser) leaves
    // a core to another. With two the cores stood idle about a quarter of the time.
    maxWorkers: 3,
    globalSetup: ['test/helpers/globalSetup.ts'],
    // The console output of a passing test (the worker's warnings about failures a test provokes on
    // purpose, a command's own output) is dropped; a failing test's is shown with its failure.
    silent: 'passed-only',
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
