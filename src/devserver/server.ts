import { TestWorkflowEnvironment } from '@temporalio/testing';
import { BATON_SEARCH_ATTRIBUTES } from '../common/messages';
import { temporalExecutable } from './binary';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Serve the Temporal UI. @default false */
  ui?: boolean;
  /** @default a free port */
  port?: number;
  /** @default port + 1000 */
  uiPort?: number;
  /** SQLite file to keep state across restarts. @default in memory */
  dbFilename?: string;
  /** Dynamic config values (`key=value`), e.g. `matching.numTaskqueueReadPartitions=1`. */
  dynamicConfig?: string[];
}

/**
 * A real Temporal server (`temporal server start-dev`) with baton's search attributes registered,
 * for tests and the demo. Stop it with `teardown()`.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: temporalExecutable('cli'),
      searchAttributes: [...BATON_SEARCH_ATTRIBUTES],
      ...(options.ui ? { ui: true } : {}),
      ...(options.port ? { port: options.port } : {}),
      ...(options.uiPort ? { uiPort: options.uiPort } : {}),
      ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
      extraArgs: (options.dynamicConfig ?? []).flatMap((v) => ['--dynamic-config-value', v]),
    },
  });
}
