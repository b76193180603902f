import { Baton } from '../client/baton';
import type { BatonRun } from '../client/run';
import { BatonError } from '../common/errors';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { parse, runOptionAmount, runOptionNumber, UsageError } from './args';
import { approvalPrompter } from './prompter';
import { connect } from './connect';
import { type Command, type CommandContext, ExitCode, Interrupted } from './context';
import { follow } from './follow';
import { checkPayloadSize, readInput } from './input';
import { PRIORITY_FLAGS, priorityFromFlags, priorityHelp } from './priority';
import { warnWhenNoWorker } from './pollers';
import { formatResult, LiveLine } from './print';
import { untilDone } from './serve';
import { unstreamedNote } from './streamsNote';
import { loadTeamModule } from './team';
import { TENANT_FLAG, tenantFromFlag } from './tenant';

/** `baton run <agent> <input>`: start a chain, print what its agents do as it happens, then the answer. */
export const runCommand: Command = {
  synopsis:
    'baton run <agent> (<input> | - | --input-file <path>) [--team <module>] [--json] [--max-handoffs N] [--max-cost <amount>]\n          [--priority N] [--fairness-key <key>] [--fairness-weight W] [--task-queue baton] [--workflow-id <id>] [--experiment <id>] [--tenant <id>]',
  summary: 'start a chain, print what its agents do and each handoff as it happens, then the answer',
  help: `Arguments:
  <agent>                the agent that takes the request first
  <input>                the request (quote it); - reads it from stdin

Options:
  --input-file <path>    read the request from a file (- for stdin); for inputs too long for a command line
  --team <module>        also serve the team in this process (a module exporting \`team\`, optionally \`hooks\`);
                         without it a \`baton worker\` must poll the task queue
  --json                 print only the result as JSON on stdout (a failure as {"error": ...});
                         progress and how to decide a waiting approval go to stderr
  --max-handoffs N       handoffs allowed in the run (default 10)
  --max-cost <amount>    what the chain may spend on model calls, in the currency of the team's prices
                         (e.g. 0.25); the answer's usage line shows what it cost
${priorityHelp(25)}
  --task-queue <name>    task queue of the workers (default baton)
  --workflow-id <id>     the chain's workflow id (default baton-<agent>-<uuid>)
  --experiment <id>      start the chain in an experiment (baton experiment): on its variant's task queue and options
  --tenant <id>          the tenant the chain belongs to: its id begins <tenant>/, BatonTenant names it

Progress comes from the chain's history as it grows: each model and tool call, handoff, and approval
asked for or refused. On a terminal, what each agent is doing shows on one line that updates in place,
with the time it has taken so far ("refunds: tool issueRefund… 1.1 s"); elsewhere each call is a line.
A handoff waiting for approval is asked about in a terminal; otherwise the command says how to decide
it from another shell. Empty input, and input whose workflow JSON is over Temporal's 2 MB payload limit,
are refused before anything starts. When no worker polls the task queue a few seconds after the start,
the command says so. Ctrl-C stops following: the chain stays in Temporal and goes on with any worker.
Exit codes: 0 answered, 1 the chain failed (the typed error is printed), 2 usage, 130 interrupted.`,
  reportsChainFailures: true,
  run,
};

async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    team: { type: 'string' },
    json: { type: 'boolean', default: false },
    'input-file': { type: 'string' },
    'max-handoffs': { type: 'string' },
    'max-cost': { type: 'string' },
    'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
    'workflow-id': { type: 'string' },
    ...PRIORITY_FLAGS,
    experiment: { type: 'string' },
    ...TENANT_FLAG,
  });
  const [agent, inputArg, ...rest] = positionals;
  if (!agent) throw new UsageError('expected <agent> and the input');
  if (rest.length > 0)
    throw new UsageError('expected exactly <agent> <input>: quote the input, or pass - / --input-file <path>');
  const maxHandoffs = runOptionNumber('max-handoffs', 'maxHandoffs', values['max-handoffs']);
  const taskQueue = values['task-queue'];
  const mod = values.team ? loadTeamModule(values.team) : undefined;
  if (mod && !mod.team.get(agent))
    throw new UsageError(`agent "${agent}" is not in the team (agents: ${mod.team.ids.join(', ')})`);
  const input = await readInput({ arg: inputArg, file: values['input-file'] }, ctx.interrupted, ctx.err);
  const maxCost = runOptionAmount('max-cost', 'maxCost', values['max-cost']);
  const priority = priorityFromFlags(values);
  const tenant = tenantFromFlag(values.tenant);
  const options = {
    ...(maxHandoffs !== undefined ? { maxHandoffs } : {}),
    ...(maxCost !== undefined ? { maxCost } : {}),
    ...(priority ? { priority } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
  };
  checkPayloadSize({ agent, input, options });

  // With --json, stdout carries the result document alone.
  const terminal = values.json ? process.stderr : process.stdout;
  const live = LiveLine.on(terminal);
  const progress = live?.wrap(values.json ? ctx.err : ctx.out) ?? (values.json ? ctx.err : ctx.out);
  const warn = live?.wrap(ctx.err) ?? ctx.err;
  const { client, native } = await connect();
  const baton = new Baton({ client, taskQueue });
  let started: BatonRun | undefined;
  const execute = async () => {
    started = await baton.start(agent, input, {
      ...options,
      ...(values['workflow-id'] ? { workflowId: values['workflow-id'] } : {}),
      ...(values.experiment ? { experiment: values.experiment } : {}),
    });
    progress(
      `chain ${started.workflowId} started at ${agent}${values.experiment ? ` in experiment ${values.experiment}` : ''}`,
    );
    const stopCheck = mod ? undefined : warnWhenNoWorker(client, taskQueue, started.workflowId, warn);
    try {
      return await follow(started, progress, {
        live,
        write: (text) => terminal.write(text),
        onPending: approvalPrompter(baton, progress, { terminal }),
        ...(mod ? {} : { textNote: unstreamedNote(), note: warn }),
      });
    } finally {
      stopCheck?.();
    }
  };
  try {
    const result = await untilDone(execute, { team: mod, connection: native, taskQueue, interrupted: ctx.interrupted });
    ctx.out(values.json ? JSON.stringify(result, null, 2) : formatResult(agent, result));
    return ExitCode.OK;
  } catch (err) {
    live?.stop();
    if (err instanceof Interrupted && started) ctx.err(stoppedNote(started.workflowId, mod ? taskQueue : undefined));
    if (!(err instanceof BatonError)) throw err;
    if (values.json)
      ctx.out(JSON.stringify({ error: { type: err.name, message: err.message, ...err.details } }, null, 2));
    ctx.err(`${err.name}: ${err.message}`);
    return ExitCode.FAILURE;
  }
}

function stoppedNote(workflowId: string, servedQueue: string | undefined): string {
  return [
    servedQueue
      ? `stopped: chain ${workflowId} stays in Temporal and goes on when a worker polls task queue "${servedQueue}".`
      : `stopped following chain ${workflowId}; it goes on in Temporal.`,
    `  where it is:  npx baton audit ${workflowId}`,
    `  to end it:    temporal workflow cancel --workflow-id ${workflowId}`,
  ].join('\n');
}
