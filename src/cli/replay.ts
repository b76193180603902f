import fs from 'node:fs';
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Baton } from '../client/baton';
import { DEFAULT_TASK_QUEUE, WorkflowType } from '../common/messages';
import type { ModelSpec, RunOverrides } from '../common/types';
import { openai } from '../models/spec';
import { checkHistories, historiesFromFiles, historiesFromServer, type HistorySource } from '../worker/determinism';
import { integerOption, parse, runOptionNumber, UsageError } from './args';
import { connect, temporalAddress } from './connect';
import type { Command, CommandContext } from './context';
import { follow } from './follow';
import { warnWhenNoWorker } from './pollers';
import { formatResult, LiveLine, type Print } from './print';
import { untilDone } from './serve';
import { loadTeamModule } from './team';

/**
 * `baton replay <workflowId>`: continue a failed chain from its last good step (or `--from-handoff N`),
 * or a conversation (moved onto the current team with `--on-current-team`);
 * `baton replay --check <workflowId | file>...`: replay histories against the current workflow code.
 */
export const replayCommand: Command = {
  synopsis:
    'baton replay <workflowId> [--from-handoff N] [--max-handoffs N] [--max-turns N] [--model <agent>=<model>]\n             [--on-current-team] [--team <module>] [--task-queue baton]\n' +
    'baton replay --check <workflowId | history.json>...',
  summary:
    'continue a failed chain from its last good step, move a conversation onto the current team; or check recorded histories for determinism',
  reportsChainFailures: true,
  help: `Continuing a chain (a new run of the same workflow id; completed model and tool calls are not repeated):
  --from-handoff N       continue from just before handoff N (1-based) instead of from the failure
  --max-handoffs N       raise or lower the handoff limit from there on
  --max-turns N          model turns allowed in one activation of an agent
  --model <agent>=<m>    use OpenAI-compatible model <m> for <agent> from there on (repeatable)
  --on-current-team      go on with the team the workers run now (a chain that failed with
                         TeamMismatchError): the migration is recorded (team a@v1 → a@v2), decisions
                         already made stand, and a handoff to an agent the team lost is answered
  A conversation id:     a running conversation moves onto the current team (--on-current-team): a
                         turn waiting for a worker of its team goes on from its last step, the
                         approvals given in it standing; a conversation whose run failed continues
                         in a new run from the state that run was handed
  --team <module>        also serve the team in this process
  --task-queue <name>    task queue of the workers (default baton)

Checking determinism:
  --check <source>...    replay each history against the current workflow code; a source is a workflow
                         id (its latest run is fetched) or a JSON file from
                         \`temporal workflow show --output json\` (a name ending in .json must be a file)
                         Exit code 1 when any history does not replay: guard the change with patched().`,
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, {
      check: { type: 'boolean', default: false },
      'from-handoff': { type: 'string' },
      'max-handoffs': { type: 'string' },
      'max-turns': { type: 'string' },
      model: { type: 'string', multiple: true },
      team: { type: 'string' },
      'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
      'on-current-team': { type: 'boolean', default: false },
    });
    if (values.check) return check(positionals, ctx.out);
    const [workflowId, ...rest] = positionals;
    if (!workflowId || rest.length > 0)
      throw new UsageError('expected exactly <workflowId> (or --check <workflowId | file>...)');
    return continueChain(workflowId, values, ctx);
  },
};

interface ContinueValues {
  'from-handoff'?: string;
  'max-handoffs'?: string;
  'max-turns'?: string;
  model?: string[];
  team?: string;
  'task-queue': string;
  'on-current-team'?: boolean;
}

async function continueChain(workflowId: string, values: ContinueValues, ctx: CommandContext): Promise<number> {
  const fromHandoff = integerOption('from-handoff', values['from-handoff'], 1);
  const overrides = overridesFrom(values);
  const mod = values.team ? loadTeamModule(values.team) : undefined;
  const taskQueue = values['task-queue'];
  const { client, native } = await connect();
  const baton = new Baton({ client, taskQueue });
  const onCurrentTeam = values['on-current-team'] === true;
  const type = await client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => d.type,
      () => undefined,
    );
  if (type === WorkflowType.CONVERSATION) return continueConversation(baton, workflowId, values, ctx);
  const replayed = await baton.replay(workflowId, {
    ...(fromHandoff !== undefined ? { fromHandoff } : {}),
    ...(overrides ? { overrides } : {}),
    ...(onCurrentTeam ? { onCurrentTeam } : {}),
  });
  const migrated = replayed.migratedFrom
    ? `, moving from team ${replayed.migratedFrom} to the team the workers run now`
    : '';
  ctx.out(
    `chain ${workflowId} continues from ${replayed.from} in run ${replayed.runId} (${replayed.mechanism} of run ${replayed.baseRunId}${migrated})`,
  );
  const live = LiveLine.on(process.stdout);
  const result = await untilDone(
    async () => {
      const stopCheck = mod
        ? undefined
        : warnWhenNoWorker(client, taskQueue, workflowId, live?.wrap(ctx.err) ?? ctx.err);
      try {
        return await follow(baton.getRun(workflowId), ctx.out, { live });
      } finally {
        stopCheck?.();
      }
    },
    { team: mod, connection: native, taskQueue, interrupted: ctx.interrupted },
  ).finally(() => live?.stop());
  ctx.out(formatResult(result.handoffChain[0]?.from ?? result.finalAgent, result));
  return 0;
}

async function continueConversation(
  baton: Baton,
  workflowId: string,
  values: ContinueValues,
  ctx: CommandContext,
): Promise<number> {
  const chainOnly = (['from-handoff', 'max-handoffs', 'max-turns', 'model', 'team'] as const).filter(
    (k) => values[k] !== undefined,
  );
  if (chainOnly.length > 0)
    throw new UsageError(
      `${workflowId} is a conversation: ${chainOnly.map((k) => `--${k}`).join(', ')} apply to chains (a conversation replays with --on-current-team only)`,
    );
  const replayed = await baton.replayConversation(workflowId, { onCurrentTeam: values['on-current-team'] === true });
  const m = replayed.migration;
  const moved = m
    ? `, moved from team ${m.from} to ${m.to}${m.turn !== undefined ? `: turn ${m.turn} goes on from its last step` : ' before its next turn'}`
    : '';
  const how =
    replayed.mechanism === 'migrate'
      ? 'goes on'
      : `continues in run ${replayed.runId} from the state run ${replayed.baseRunId} was handed`;
  ctx.out(`conversation ${workflowId} ${how}${moved}`);
  return 0;
}

function overridesFrom(values: ContinueValues): RunOverrides | undefined {
  const maxHandoffs = runOptionNumber('max-handoffs', 'maxHandoffs', values['max-handoffs']);
  const maxTurns = runOptionNumber('max-turns', 'maxTurns', values['max-turns']);
  const models: Record<string, ModelSpec> = {};
  for (const m of values.model ?? []) {
    const [agent, name] = m.split('=');
    if (!agent || !name) throw new UsageError(`--model takes <agent>=<openai model>, got "${m}"`);
    models[agent] = openai(name);
  }
  const options = {
    ...(maxHandoffs !== undefined ? { maxHandoffs } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
  };
  if (Object.keys(options).length === 0 && Object.keys(models).length === 0) return undefined;
  return {
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(Object.keys(models).length > 0 ? { models } : {}),
  };
}

async function check(sources: string[], print: Print): Promise<number> {
  if (sources.length === 0)
    throw new UsageError('--check needs workflow ids or history files (temporal workflow show --output json)');
  const missing = sources.filter((s) => s.endsWith('.json') && !fs.existsSync(s));
  if (missing.length > 0) throw new UsageError(`no such history file: ${missing.join(', ')}`);
  const files = sources.filter((s) => fs.existsSync(s));
  const ids = sources.filter((s) => !fs.existsSync(s));
  const histories = [
    ...readFiles(files),
    ...(ids.length > 0 ? await fetchHistories((await connect()).client, ids) : []),
  ];
  const results = await checkHistories(histories);
  for (const r of results)
    print(
      r.ok ? `ok    ${r.source}` : `${r.nondeterministic ? 'NONDETERMINISTIC' : 'FAILED'}  ${r.source}: ${r.error}`,
    );
  const bad = results.filter((r) => !r.ok).length;
  print(
    bad === 0
      ? `${results.length} histories replay with the current workflow code`
      : `${bad} of ${results.length} histories do not replay: guard the change with patched()`,
  );
  return bad === 0 ? 0 : 1;
}

function readFiles(files: string[]): HistorySource[] {
  return files.map((file) => {
    try {
      return historiesFromFiles([file])[0]!;
    } catch (err) {
      throw new Error(
        `${file} is not a workflow history in Temporal's JSON (temporal workflow show --output json): ${(err as Error).message}`,
      );
    }
  });
}

/** gRPC's NOT_FOUND, which fetching the history of an unknown workflow id answers. */
const NOT_FOUND = 5;

async function fetchHistories(client: Client, ids: string[]): Promise<HistorySource[]> {
  const fetched = ids.map((id) =>
    historiesFromServer(client, [id]).catch((err: unknown) => {
      if (!(err instanceof WorkflowNotFoundError) && !(isGrpcServiceError(err) && err.code === NOT_FOUND)) throw err;
      throw new UsageError(
        `"${id}" is neither a history file nor a workflow id on ${temporalAddress()} (namespace ${client.options.namespace})`,
      );
    }),
  );
  return (await Promise.all(fetched)).flat();
}
