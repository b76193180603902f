/**
 * Temporal's runtime for the workers a CLI command runs in its process (`baton run --team`, `baton
 * worker`, the demo): loaded only by commands whose modules load the worker package.
 */
import { DefaultLogger, type LogLevel, type LogMetadata, Runtime } from '@temporalio/worker';

/** Whether this process installed it (once: Temporal's runtime is one per process). */
const installed = { done: false };

/**
 * Install the runtime, once: the worker log on stderr at BATON_LOG_LEVEL (default WARN), and no signal
 * handlers of its own (they would turn the first Ctrl-C into a worker shutdown and nothing else).
 */
export function installCliRuntime(quietWorkflowFailures: boolean): void {
  if (installed.done) return;
  installed.done = true;
  Runtime.install({ logger: new CliLogger(quietWorkflowFailures), shutdownSignals: [] });
}

/** The worker log; without the "Workflow failed" warning when the command prints a failed chain's error itself. */
class CliLogger extends DefaultLogger {
  constructor(private readonly quietWorkflowFailures: boolean) {
    super((process.env.BATON_LOG_LEVEL as LogLevel | undefined) ?? 'WARN');
  }

  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (this.quietWorkflowFailures && message === 'Workflow failed') return;
    super.log(level, message, meta);
  }
}
