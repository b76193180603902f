import { BatonError } from '../common/errors';
import { UsageError } from './args';
import {
  type Command,
  type CommandContext,
  ExitCode,
  Interrupted,
  interruptedExitCode,
  listenForInterrupts,
} from './context';
import type * as Approvals from './approvals';
import type { Print } from './print';
import { inCommandScope } from './commandScope';
import { installCliRuntime } from './runtime';
import { TeamModuleError } from './team';

/** The command `name` that the module `path` (beside this one) exports, loaded when asked for. */
function exported(path: string, name: string): () => Command {
  return () => (require(path) as Record<string, Command>)[name]!;
}

/**
 * Each command's module, loaded when the command runs (or shows its help): a command that only
 * talks to the server (`approve`, `pending`, `audit`, …) then loads neither the worker nor the
 * HTTP service nor the model clients, about a second of every such call.
 */
const LOADERS: Record<string, () => Command> = {
  demo: exported('./demo', 'demoCommand'),
  dev: exported('./dev', 'devCommand'),
  worker: exported('./worker', 'workerCommand'),
  run: exported('./run', 'runCommand'),
  chat: exported('./chat', 'chatCommand'),
  pending: exported('./approvals', 'pendingCommand'),
  inbox: exported('./inbox', 'inboxCommand'),
  approve: () => (require('./approvals') as typeof Approvals).decideCommand('approve'),
  reject: () => (require('./approvals') as typeof Approvals).decideCommand('reject'),
  ask: exported('./questions', 'askCommand'),
  answer: exported('./questions', 'answerCommand'),
  steer: exported('./steer', 'steerCommand'),
  audit: exported('./audit', 'auditCommand'),
  keygen: exported('./keygen', 'keygenCommand'),
  replay: exported('./replay', 'replayCommand'),
  team: exported('./teamCommand', 'teamCommand'),
  breakers: exported('./economics', 'breakersCommand'),
  spend: exported('./economics', 'spendCommand'),
  eval: exported('./eval', 'evalCommand'),
  dataset: exported('./dataset', 'datasetCommand'),
  experiment: exported('./experiment', 'experimentCommand'),
  stats: exported('./stats', 'statsCommand'),
  serve: exported('./serveHttp', 'serveCommand'),
  'codec-server': exported('./codecServer', 'codecServerCommand'),
};

const load = (name: string): Command | undefined => (Object.hasOwn(LOADERS, name) ? LOADERS[name]!() : undefined);

/** `baton --help`: every command (this loads them all). */
const overview = () => `baton: durable multi-agent handoffs on Temporal

Usage:
${Object.keys(LOADERS)
  .map((name) => load(name)!)
  .map((c) => `  ${c.synopsis.replace(/\n/g, '\n  ')}\n      ${c.summary}`)
  .join('\n')}

\`baton <command> --help\` explains a command. Results go to stdout, errors and warnings to stderr.
Exit codes: 0 done, 1 failed, 2 usage (a wrong command line), 130 interrupted.

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default "default"),
OPENAI_API_KEY, OPENAI_BASE_URL, BATON_LOG_LEVEL (default WARN).`;

/** `baton <command> --help`: the command's own usage text. */
export function commandHelp(name: string): string {
  const c = load(name)!;
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
    out(overview());
    return ExitCode.OK;
  }
  if (name === 'help') {
    if (!Object.hasOwn(LOADERS, rest[0]!)) return unknownCommand(rest[0]!, err);
    out(commandHelp(rest[0]!));
    return ExitCode.OK;
  }
  if (!name) {
    err(overview());
    return ExitCode.USAGE;
  }
  const command = load(name);
  if (!command) return unknownCommand(name, err);
  if (asksForHelp(rest)) {
    out(commandHelp(name));
    return ExitCode.OK;
  }
  // A command whose modules load the worker package runs (or replays) workflows in this process: Temporal's runtime goes in first.
  if (require.cache[require.resolve('@temporalio/worker')]) installCliRuntime(command.reportsChainFailures ?? false);
  const interrupts = listenForInterrupts();
  const ctx: CommandContext = { out, err, interrupted: interrupts.first };
  try {
    return await Promise.race([
      inCommandScope(() => command.run(rest, ctx)),
      interrupts.forced.then((signal) => interruptedExitCode(signal)),
    ]);
  } catch (e) {
    return report(name, command, e, err);
  } finally {
    interrupts.dispose();
  }
}

function report(name: string, command: Command, e: unknown, err: Print): number {
  if (e instanceof UsageError) {
    err(
      `baton ${name}: ${e.message}\nusage: ${command.synopsis.replace(/\n/g, '\n       ')}\n(\`baton ${name} --help\` for more)`,
    );
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
  err(`baton: unknown command "${name}" (commands: ${Object.keys(LOADERS).join(', ')}; \`baton --help\` lists them)`);
  return ExitCode.USAGE;
}

/** `--help` or `-h` among a command's options (not after `--`, where it would be an argument). */
function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
