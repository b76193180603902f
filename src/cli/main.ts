import { DefaultLogger, type LogLevel, type LogMetadata, Runtime } from '@temporalio/worker';
import { BatonError } from '../common/errors';
import { UsageError } from './args';
import { decideCommand, pendingCommand } from './approvals';
import { auditCommand } from './audit';
import { chatCommand } from './chat';
import { codecServerCommand } from './codecServer';
import { type Command, type CommandContext, ExitCode, Interrupted, interruptedExitCode, listenForInterrupts } from './context';
import { demoCommand } from './demo';
import { datasetCommand } from './dataset';
import { keygenCommand } from './keygen';
import { devCommand } from './dev';
import { breakersCommand, spendCommand } from './economics';
import { evalCommand } from './eval';
import { experimentCommand } from './experiment';
import type { Print } from './print';
import { replayCommand } from './replay';
import { runCommand } from './run';
import { serveCommand } from './serveHttp';
import { statsCommand } from './stats';
import { TeamModuleError } from './team';
import { teamCommand } from './teamCommand';
import { steerCommand } from './steer';
import { workerCommand } from './worker';

const COMMANDS: Record<string, Command> = {
  demo: demoCommand,
  dev: devCommand,
  worker: workerCommand,
  run: runCommand,
  chat: chatCommand,
  pending: pendingCommand,
  approve: decideCommand('approve'),
  reject: decideCommand('reject'),
  steer: steerCommand,
  audit: auditCommand,
  keygen: keygenCommand,
  replay: replayCommand,
  team: teamCommand,
  breakers: breakersCommand,
  spend: spendCommand,
  eval: evalCommand,
  dataset: datasetCommand,
  experiment: experimentCommand,
  stats: statsCommand,
  serve: serveCommand,
  'codec-server': codecServerCommand,
};

const OVERVIEW = `baton: durable multi-agent handoffs on Temporal

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.synopsis.replace(/\n/g, '\n  ')}\n      ${c.summary}`)
  .join('\n')}

\`baton <command> --help\` explains a command. Results go to stdout, errors and warnings to stderr.
Exit codes: 0 done, 1 failed, 2 usage (a wrong command line), 130 interrupted.

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default "default"),
OPENAI_API_KEY, OPENAI_BASE_URL, BATON_LOG_LEVEL (default WARN).`;

/** `baton <command> --help`: the command's own usage text. */
export function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  return `Usage: ${c.synopsis.replace(/\n/g, '\n       ')}\n\n${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.\n\n${c.help}`;
}

/** Where the CLI writes: results on `out`, errors and warnings on `err`. */
export interface MainOutput {
  /** @default console.log */
  out?: Print;
  /** @default console.error */
  err?: Print;
}

/** Run the CLI; resolves to the process exit code (see {@link ExitCode}). */
export async function main(argv: string[], output: MainOutput = {}): Promise<number> {
  const out = output.out ?? ((line: string) => console.log(line));
  const err = output.err ?? ((line: string) => console.error(line));
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    out(OVERVIEW);
    return ExitCode.OK;
  }
  if (name === 'help') {
    if (!COMMANDS[rest[0]!]) return unknownCommand(rest[0]!, err);
    out(commandHelp(rest[0]!));
    return ExitCode.OK;
  }
  if (!name) {
    err(OVERVIEW);
    return ExitCode.USAGE;
  }
  const command = COMMANDS[name];
  if (!command) return unknownCommand(name, err);
  if (asksForHelp(rest)) {
    out(commandHelp(name));
    return ExitCode.OK;
  }
  // The runtime's own signal handlers would turn the first Ctrl-C into a worker shutdown and nothing else.
  Runtime.install({ logger: new CliLogger(command.reportsChainFailures ?? false), shutdownSignals: [] });
  const interrupts = listenForInterrupts();
  const ctx: CommandContext = { out, err, interrupted: interrupts.first };
  try {
    return await Promise.race([command.run(rest, ctx), interrupts.forced.then((signal) => interruptedExitCode(signal))]);
  } catch (e) {
    return report(name, command, e, err);
  } finally {
    interrupts.dispose();
  }
}

/** The worker log on stderr, at BATON_LOG_LEVEL (default WARN). */
class CliLogger extends DefaultLogger {
  constructor(private readonly quietWorkflowFailures: boolean) {
    super((process.env.BATON_LOG_LEVEL as LogLevel | undefined) ?? 'WARN');
  }

  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (this.quietWorkflowFailures && message === 'Workflow failed') return;
    super.log(level, message, meta);
  }
}

function report(name: string, command: Command, e: unknown, err: Print): number {
  if (e instanceof UsageError) {
    err(`baton ${name}: ${e.message}\nusage: ${command.synopsis.replace(/\n/g, '\n       ')}\n(\`baton ${name} --help\` for more)`);
    return ExitCode.USAGE;
  }
  if (e instanceof Interrupted) return interruptedExitCode(e.signal);
  if (e instanceof TeamModuleError) {
    const cause = e.cause as Error | undefined;
    err(`baton ${name}: ${e.message}:\n${cause?.stack ?? String(cause)}`);
    return ExitCode.FAILURE;
  }
  err(`baton ${name}: ${e instanceof BatonError ? `${e.name}: ` : ''}${(e as Error).message ?? String(e)}`);
  return ExitCode.FAILURE;
}

function unknownCommand(name: string, err: Print): number {
  err(`baton: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')}; \`baton --help\` lists them)`);
  return ExitCode.USAGE;
}

/** `--help` or `-h` among a command's options (not after `--`, where it would be an argument). */
function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
