/**
 * Temporal's runtime for the workers a CLI command runs in its process (`baton run --team`, `baton
 * worker`, the demo). The worker package is loaded only when it is installed: commands that never
 * run a worker import this module too.
 */
import type {
  DefaultLogger as DefaultLoggerClass,
  LogLevel,
  LogMetadata,
  Runtime as RuntimeClass,
} from '@temporalio/worker';

/** Whether this process installed it (once: Temporal's runtime is one per process). */
const installed = { done: false };

/**
 * Install the runtime, once: the worker log on stderr at BATON_LOG_LEVEL (default WARN), without
 * the "Workflow failed" warning when the command prints a failed chain's error itself, and no
 * signal handlers of its own (they would turn the first Ctrl-C into a worker shutdown and nothing else).
 */
export function installCliRuntime(quietWorkflowFailures: boolean): void {
  if (installed.done) return;
  installed.done = true;
  const { DefaultLogger, Runtime } = require('@temporalio/worker') as {
    DefaultLogger: typeof DefaultLoggerClass;
    Runtime: typeof RuntimeClass;
  };
  class CliLogger extends DefaultLogger {
    override log(level: LogLevel, message: string, meta?: LogMetadata): void {
      if (quietWorkflowFailures && message === 'Workflow failed') return;
      super.log(level, message, meta);
    }
  }
  Runtime.install({
    logger: new CliLogger((process.env.BATON_LOG_LEVEL as LogLevel | undefined) ?? 'WARN'),
    shutdownSignals: [],
  });
}
