import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The examples import baton by its package name, as a service does; in this checkout that is the sources (as tsconfig.json's paths say). */
const source = (file: string) => path.resolve(import.meta.dirname, file);

/**
 * The order the test files start in: the slowest first (`SLOW`: the seconds each took in a run of
 * the whole suite on a 2-core machine), then the rest in vitest's own order (the longest first once
 * it has timed them, else the largest). Three files run at a time: a slow file that starts late
 * runs alone at the end while the other slots stand empty. On a fresh clone, with nothing timed,
 * the model harness (9 minutes, a small file) started 17 minutes into a 27-minute run and was its
 * last 3 minutes.
 */
const SLOW: Record<string, number> = {
  'test/model/model.test.ts': 179,
  'test/model/regressions-2.test.ts': 172,
  'test/model/regressions-3.test.ts': 161,
  'test/package/package.test.ts': 142,
  'test/server/pageInbox.test.ts': 128,
  'test/model/regressions-1.test.ts': 96,
  'test/conversation/stranded.test.ts': 85,
  'test/integration/archive.test.ts': 77,
  'test/models/faults.test.ts': 64,
  'test/cli/runs.test.ts': 56,
  'test/model/jwks.test.ts': 51,
  'test/model/passkeys.test.ts': 50,
  'test/model/questions.test.ts': 48,
  'test/integration/largeHistoryPages.test.ts': 47,
  'test/integration/remoteDelegation.test.ts': 40,
  'test/bounds/oversized.test.ts': 39,
  'test/property/invariants.test.ts': 37,
  'test/integration/decisionTaskFailing.test.ts': 37,
  'test/cli/delegations.test.ts': 36,
  'test/mcp/failures.test.ts': 35,
};

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => SLOW[path.relative(this.ctx.config.root, f.moduleId)] ?? 0;
    // Array.prototype.sort is stable: files not listed keep vitest's order among themselves.
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

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
    // A process runs file after file, each with its own servers and workers: Temporal's SDK, the
    // other libraries and baton's own modules load once a process instead of once a file (the 84
    // unit files: 52.6 s in a process each, 12.0 s sharing). test/helpers/setup.ts gives each file
    // the suite's environment; what a module keeps for its process no test asserts on across files.
    isolate: false,
    // Three files at a time on two cores: a file that waits (on a timer, a server, a browser) leaves
    // a core to another. With two the cores stood idle about a quarter of the time.
    maxWorkers: 3,
    // The slowest files start first, so none runs alone at the end (SlowestFirst above).
    sequence: { sequencer: SlowestFirst },
    globalSetup: ['test/helpers/globalSetup.ts'],
    // The console output of a passing test (the worker's warnings about failures a test provokes on
    // purpose, a command's own output) is dropped; a failing test's is shown with its failure.
    silent: 'passed-only',
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
