import { DefaultLogger, Runtime } from '@temporalio/worker';
import { BatonError } from '../common/errors';
import { UsageError } from './args';
import { decide, pending } from './approvals';
import { audit } from './audit';
import { dev, run, worker, type Print } from './commands';
import { demo } from './demo';
import { replay } from './replay';

const USAGE = `baton: durable multi-agent handoffs on Temporal

Usage:
  baton demo [--input <text>] [--keep]        run the support example end to end (no setup needed)
  baton dev [--port 7233] [--ui-port 8233] [--db <file>]
                                              start a local Temporal server with the UI
  baton worker --team <module> [--task-queue baton]
                                              serve a team's agents
  baton run <agent> <input> [--team <module>] [--json] [--max-handoffs N]
            [--task-queue baton] [--workflow-id <id>]
                                              start a chain, print each handoff, then the answer
  baton pending [--json]                      handoffs waiting for approval, across chains
  baton approve <workflowId> [--handoff <id>] --as <approver> [--comment <text>]
  baton reject <workflowId> [--handoff <id>] --as <approver> [--reason <text>]
                                              decide a waiting handoff (--handoff when several wait)
  baton audit <workflowId> [--json | --mermaid]
                                              the chain rebuilt from its workflow history
  baton replay <workflowId> [--from-handoff N] [--max-handoffs N] [--max-turns N]
               [--model <agent>=<openai model>] [--team <module>]
                                              continue a failed chain from its last good step
  baton replay --check <workflowId | history.json>...
                                              replay histories against the current workflow code

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default "default"),
OPENAI_API_KEY, OPENAI_BASE_URL.`;

const COMMANDS: Record<string, (argv: string[], print: Print) => Promise<number>> = {
  demo,
  dev,
  worker,
  run,
  pending,
  approve: decide('approve'),
  reject: decide('reject'),
  audit,
  replay,
};

/** Run the CLI; resolves to the process exit code. */
export async function main(argv: string[], print: Print = (line) => console.log(line)): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    print(USAGE);
    return command ? 0 : 2;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    print(`unknown command "${command}" (commands: ${Object.keys(COMMANDS).join(', ')})\n\n${USAGE}`);
    return 2;
  }
  Runtime.install({ logger: new DefaultLogger((process.env.BATON_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN') });
  try {
    return await handler(rest, print);
  } catch (err) {
    if (err instanceof UsageError) {
      print(`baton ${command}: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    print(`baton ${command}: ${err instanceof BatonError ? `${err.name}: ` : ''}${(err as Error).message}`);
    return 1;
  }
}
