import fs from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../common/model';
import { type CaseSelection, evalCases } from '../eval/cases';
import { formatCaseLine, formatEvalReport } from '../eval/format';
import { runEval } from '../eval/run';
import { parseThreshold } from '../common/eval/summary';
import { ToolMode } from '../common/eval/types';
import { integerOption, parse, runOptionNumber, UsageError } from './args';
import { connect } from './connect';
import { type Command, type CommandContext, ExitCode, Interrupted, interruptible } from './context';
import { loadTeamModule } from './team';

/** `baton eval --team <candidate> (--query | --ids | --histories | --dataset)`: a changed team against recorded chains. */
export const evalCommand: Command = {
  synopsis:
    'baton eval --team <module> (--query <visibility query> [--limit N] | --ids <id,…> | --histories <file,…> | --dataset <file.jsonl>)\n' +
    '           [--eval-id <id>] [--concurrency 4] [--tools recorded|live] [--live-tools <tool,…>] [--approvals approve|reject]\n' +
    '           [--judge <provider>:<model> | <module>#<export>] [--rubric <text>] [--threshold <rules>] [--json <file | ->] [--max-handoffs N]',
  summary:
    'run a candidate team against recorded chains (or a dataset): routes, outcomes, what changed and why; exit 1 past a threshold',
  help: `The candidate team (--team) runs each case's request as the recorded chain did: while a model call's
input is one the record has (same agent and n-th call, model, instructions, conversation, tools and
their schemas), the recorded answer is reused and no model is called; from a call whose input differs,
the candidate's model is called. Tools answer with the record's result of the same call; a call the
record lacks is not run (the model is told), unless --tools live or the tool is in --live-tools.
Approvals are decided as the record decided them; one the record lacks is approved (--approvals).

Cases:
  --query <query>        ended chains a visibility query finds, e.g. 'BatonTeam="support@v1"' (top chains only)
  --limit N              at most N of them (default 100)
  --ids <id,…>           chains by workflow id
  --histories <file,…>   exported histories (temporal workflow show --output json)
  --dataset <file>       a JSONL dataset (baton dataset add; docs/evaluation.md): requests with expectations

Options:
  --eval-id <id>         the eval's workflow id; give an interrupted eval's to go on with it (default eval-<uuid>)
  --concurrency N        cases at once (default 4)
  --tools recorded|live  how tools answer (default recorded)
  --live-tools <t,…>     tools that run for real when the record has no result for the call
  --approvals approve|reject   an approval the record has no decision for (default approve)
  --judge <spec>         the LLM judge of cases with a rubric: <provider>:<model> (openai:gpt-4o-mini), or a
                         module's model spec (./judge.ts#model)
  --rubric <text>        a rubric for every case (a dataset line's expect.judge.rubric wins)
  --threshold <rules>    when the eval fails, e.g. regressions<=0,route>=0.9,outcome>=0.95,pass>=0.8
                         (default regressions<=0)
  --json <file | ->      write the report as JSON to a file (- for stdout; progress and the table go to stderr)
  --max-handoffs N       the candidate chains' maxHandoffs

The eval runs as workflows on the server (evalRun, a child evalCase per case), served by a worker in
this process on the task queue baton-eval-<id>. Ctrl-C stops following; run the same command with
--eval-id to go on. Exit codes: 0 the threshold holds, 1 it is breached (or the eval failed), 2 usage,
130 interrupted.`,
  // A candidate chain that fails is an outcome the report shows, not a worker's warning.
  reportsChainFailures: true,
  run,
};

async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    team: { type: 'string' },
    query: { type: 'string' },
    limit: { type: 'string' },
    ids: { type: 'string', multiple: true },
    histories: { type: 'string', multiple: true },
    dataset: { type: 'string' },
    'eval-id': { type: 'string' },
    concurrency: { type: 'string' },
    tools: { type: 'string', default: ToolMode.RECORDED },
    'live-tools': { type: 'string' },
    approvals: { type: 'string', default: 'approve' },
    judge: { type: 'string' },
    rubric: { type: 'string' },
    threshold: { type: 'string' },
    json: { type: 'string' },
    'max-handoffs': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const selection = selectionOf(values);
  if (values.tools !== 'recorded' && values.tools !== 'live')
    throw new UsageError(`--tools must be recorded or live, got ${JSON.stringify(values.tools)}`);
  if (values.approvals !== 'approve' && values.approvals !== 'reject')
    throw new UsageError(`--approvals must be approve or reject, got ${JSON.stringify(values.approvals)}`);
  const concurrency = integerOption('concurrency', values.concurrency, 1, 100);
  const maxHandoffs = runOptionNumber('max-handoffs', 'maxHandoffs', values['max-handoffs']);
  const judge = values.judge !== undefined ? judgeModel(values.judge) : undefined;
  if (values.rubric !== undefined && !judge)
    throw new UsageError('--rubric needs --judge: the model that scores the answers');
  let threshold;
  try {
    threshold = values.threshold !== undefined ? parseThreshold(values.threshold) : undefined;
  } catch (err) {
    throw new UsageError(`--threshold: ${(err as Error).message}`);
  }
  const mod = loadTeamModule(values.team);
  const toStdout = values.json === '-';
  const say = toStdout ? ctx.err : ctx.out;
  const { client, native } = await connect();
  const cases = await evalCases(client, selection);
  const stop = new AbortController();
  const evaluating = runEval({
    client,
    connection: await native(),
    team: mod.team,
    cases,
    ...(values['eval-id'] ? { evalId: values['eval-id'] } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    tools: values.tools,
    liveTools: listOf(values['live-tools']),
    approvals: values.approvals,
    ...(judge ? { judge: { model: judge, ...(values.rubric !== undefined ? { rubric: values.rubric } : {}) } } : {}),
    ...(maxHandoffs !== undefined ? { runOptions: { maxHandoffs } } : {}),
    ...(threshold ? { threshold } : {}),
    signal: stop.signal,
    onStart: ({ evalId, total, resumed }) =>
      say(
        `eval ${evalId}: ${total} case${total === 1 ? '' : 's'} on team ${mod.team.version.id}${resumed ? ' (going on with the run under this id)' : ''}`,
      ),
    onCase: (report, progress) => say(`  ${formatCaseLine(report, progress)}`),
  });
  let report;
  try {
    report = await interruptible(evaluating, ctx.interrupted);
  } catch (err) {
    if (err instanceof Interrupted) {
      stop.abort();
      await Promise.race([evaluating.catch(() => undefined), new Promise((r) => setTimeout(r, 3_000).unref())]);
      ctx.err(
        'stopped following: the eval goes on in Temporal when a worker serves it; run the same command with --eval-id <id> to go on',
      );
    }
    throw err;
  }
  say('');
  for (const line of formatEvalReport(report)) say(line);
  if (values.json !== undefined) {
    const json = JSON.stringify(report, null, 2);
    if (toStdout) ctx.out(json);
    else {
      fs.mkdirSync(path.dirname(path.resolve(values.json)), { recursive: true });
      fs.writeFileSync(values.json, `${json}\n`);
      say(`report written to ${values.json}`);
    }
  }
  return report.summary.threshold.breached.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
}

function selectionOf(v: {
  query?: string;
  limit?: string;
  ids?: string[];
  histories?: string[];
  dataset?: string;
}): CaseSelection {
  const given = [v.query !== undefined, v.ids !== undefined, v.histories !== undefined, v.dataset !== undefined].filter(
    Boolean,
  ).length;
  if (given !== 1) throw new UsageError('give the cases one way: --query, --ids, --histories or --dataset');
  if (v.limit !== undefined && v.query === undefined) throw new UsageError('--limit goes with --query');
  if (v.query !== undefined) {
    const limit = integerOption('limit', v.limit, 1, 500);
    return { query: v.query, ...(limit !== undefined ? { limit } : {}) };
  }
  if (v.ids) return { ids: v.ids.flatMap(listOf) };
  if (v.histories) return { histories: v.histories.flatMap(listOf) };
  return { dataset: v.dataset! };
}

function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The judge's model: `<provider>:<model>`, or a model spec a module exports (`./judge.ts#model`). */
function judgeModel(spec: string): ModelSpec {
  if (spec.includes('#')) {
    const [file, name] = spec.split('#') as [string, string];
    let mod: Record<string, unknown>;
    try {
      mod = require(path.resolve(file)) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`--judge ${spec}: cannot load ${file}: ${(err as Error).message}`);
    }
    const model = mod[name] as ModelSpec | undefined;
    if (!model || typeof model.provider !== 'string' || typeof model.model !== 'string')
      throw new UsageError(
        `--judge ${spec}: ${file} exports no model spec named ${name} (e.g. export const ${name} = openai('gpt-4o-mini'))`,
      );
    return model;
  }
  const at = spec.indexOf(':');
  if (at <= 0 || at === spec.length - 1)
    throw new UsageError(
      `--judge must be <provider>:<model> (e.g. openai:gpt-4o-mini) or <module>#<export>, got ${JSON.stringify(spec)}`,
    );
  return { provider: spec.slice(0, at), model: spec.slice(at + 1) } as ModelSpec;
}
