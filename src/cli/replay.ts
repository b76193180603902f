import fs from 'node:fs';
import { Baton } from '../client/baton';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import type { ModelSpec, RunOverrides } from '../common/types';
import { openai } from '../models/spec';
import { createWorker } from '../worker';
import { checkHistories, historiesFromFiles, historiesFromServer } from '../worker/determinism';
import { intOption, parse, UsageError } from './args';
import type { Print } from './commands';
import { formatResult } from './commands';
import { connect } from './connect';
import { follow } from './follow';
import { loadTeamModule } from './team';

/**
 * `baton replay <workflowId>`: continue a failed chain from its last good step (or `--from-handoff N`);
 * `baton replay --check <workflowId | file>...`: replay histories against the current workflow code.
 */
export async function replay(argv: string[], print: Print): Promise<number> {
  const { values, positionals } = parse(argv, {
    check: { type: 'boolean', default: false },
    'from-handoff': { type: 'string' },
    'max-handoffs': { type: 'string' },
    'max-turns': { type: 'string' },
    model: { type: 'string', multiple: true },
    team: { type: 'string' },
    'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
  });
  if (values.check) return check(positionals, print);
  const [workflowId, ...rest] = positionals;
  if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId> (or --check <workflowId | file>...)');
  const fromHandoff = intOption('from-handoff', values['from-handoff']);
  const overrides = overridesFrom(values);
  const mod = values.team ? loadTeamModule(values.team) : undefined;
  const { client, native } = await connect();
  const baton = new Baton({ client, taskQueue: values['task-queue'] });
  const replayed = await baton.replay(workflowId, { ...(fromHandoff !== undefined ? { fromHandoff } : {}), ...(overrides ? { overrides } : {}) });
  print(`chain ${workflowId} continues from ${replayed.from} in run ${replayed.runId} (${replayed.mechanism} of run ${replayed.baseRunId})`);
  const run = baton.getRun(workflowId);
  const result = mod
    ? await (await createWorker({ team: mod.team, hooks: mod.hooks, connection: await native(), taskQueue: values['task-queue'] })).runUntil(follow(run, print))
    : await follow(run, print);
  print(formatResult(result.handoffChain[0]?.from ?? result.finalAgent, result));
  return 0;
}

function overridesFrom(values: { 'max-handoffs'?: string; 'max-turns'?: string; model?: string[] }): RunOverrides | undefined {
  const maxHandoffs = intOption('max-handoffs', values['max-handoffs']);
  const maxTurns = intOption('max-turns', values['max-turns']);
  const models: Record<string, ModelSpec> = {};
  for (const m of values.model ?? []) {
    const [agent, name] = m.split('=');
    if (!agent || !name) throw new UsageError(`--model takes <agent>=<openai model>, got "${m}"`);
    models[agent] = openai(name);
  }
  const options = { ...(maxHandoffs !== undefined ? { maxHandoffs } : {}), ...(maxTurns !== undefined ? { maxTurns } : {}) };
  if (Object.keys(options).length === 0 && Object.keys(models).length === 0) return undefined;
  return { ...(Object.keys(options).length > 0 ? { options } : {}), ...(Object.keys(models).length > 0 ? { models } : {}) };
}

async function check(sources: string[], print: Print): Promise<number> {
  if (sources.length === 0) throw new UsageError('--check needs workflow ids or history files (temporal workflow show --output json)');
  const files = sources.filter((s) => fs.existsSync(s));
  const ids = sources.filter((s) => !fs.existsSync(s));
  const histories = [...historiesFromFiles(files), ...(ids.length > 0 ? await historiesFromServer((await connect()).client, ids) : [])];
  const results = await checkHistories(histories);
  for (const r of results) print(r.ok ? `ok    ${r.source}` : `${r.nondeterministic ? 'NONDETERMINISTIC' : 'FAILED'}  ${r.source}: ${r.error}`);
  const bad = results.filter((r) => !r.ok).length;
  print(bad === 0 ? `${results.length} histories replay with the current workflow code` : `${bad} of ${results.length} histories do not replay: guard the change with patched()`);
  return bad === 0 ? 0 : 1;
}
