import fs from 'node:fs';
import { Baton } from '../client/baton';
import type { ExperimentDefinition, ExperimentState } from '../common/experiment';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton experiment start|stop|show`: split live traffic between variants of a team. */
export const experimentCommand: Command = {
  synopsis:
    'baton experiment start <definition.json> [--task-queue baton]\nbaton experiment stop <id> --winner <variant> [--reason <text>] [--as <who>]\nbaton experiment show <id> [--json]',
  summary: 'start, stop or show an experiment that splits new chains between variants',
  help: `start <file>   start the experiment a JSON file defines:
                 {"id": "pricing", "key": "context.tenantId",
                  "variants": [{"name": "a", "taskQueue": "baton"},
                               {"name": "b", "taskQueue": "baton-v2", "weight": 1, "options": {"maxHandoffs": 3}}]}
               key: "id" (a chain's or conversation's id, the default) or "context.<field>"; each variant
               may name the task queue (or the worker deployment version, {"deployment": {"name", "buildId"}})
               whose workers serve its team version, and run options over those a chain starts with.
               Chains started with the experiment (baton run --experiment, baton.start(…, {experiment}),
               the HTTP service's "experiment") get a variant by a hash of the key and the experiment's id,
               recorded in their memo (batonVariant) and BatonVariant.
stop <id>      from now on every new chain goes to --winner (clients read the change within 5 s)
show <id>      the experiment's definition and state
--task-queue   where the experiment's own workflow runs (any baton worker's queue; default baton)

Its figures: baton stats --experiment <id>.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      winner: { type: 'string' },
      reason: { type: 'string' },
      as: { type: 'string' },
      json: { type: 'boolean', default: false },
      'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
    });
    const [action, arg, ...rest] = positionals;
    if (!arg || rest.length > 0) throw new UsageError('expected start <definition.json>, stop <id> or show <id>');
    if (!['start', 'stop', 'show'].includes(action!))
      throw new UsageError(`unknown action ${JSON.stringify(action)}: start, stop or show`);
    if (action === 'stop' && !values.winner)
      throw new UsageError('--winner <variant> is required: the variant every new chain goes to');
    const { client } = await connect();
    const baton = new Baton({ client, taskQueue: values['task-queue'] });
    if (action === 'start') {
      let definition: ExperimentDefinition;
      try {
        definition = JSON.parse(fs.readFileSync(arg, 'utf8')) as ExperimentDefinition;
      } catch (err) {
        throw new UsageError(`cannot read the experiment ${arg}: ${(err as Error).message}`);
      }
      describe(await baton.experiments.start(definition), out, values.json);
      return 0;
    }
    if (action === 'stop') {
      describe(
        await baton.experiments.stop(arg, {
          winner: values.winner!,
          ...(values.as ? { by: values.as } : {}),
          ...(values.reason ? { reason: values.reason } : {}),
        }),
        out,
        values.json,
      );
      return 0;
    }
    describe(await baton.experiments.get(arg), out, values.json);
    return 0;
  },
};

function describe(s: ExperimentState, out: (line: string) => void, json: boolean): void {
  if (json) return out(JSON.stringify(s, null, 2));
  const d = s.definition;
  out(
    `experiment ${d.id}: ${s.status === 'stopped' ? `stopped ${s.stoppedAt}${s.stoppedBy ? ` by ${s.stoppedBy}` : ''}; every new chain goes to ${s.winner}` : `running since ${s.startedAt}`}`,
  );
  out(`  split by ${d.key ?? 'id'}`);
  const total = d.variants.reduce((n, v) => n + (v.weight ?? 1), 0);
  for (const v of d.variants) {
    const where = v.deployment
      ? `deployment ${v.deployment.name}.${v.deployment.buildId}`
      : v.taskQueue
        ? `task queue ${v.taskQueue}`
        : "the client's task queue";
    out(
      `  ${v.name}: ${(((v.weight ?? 1) / total) * 100).toFixed(0)}% on ${where}${v.options ? `, options ${JSON.stringify(v.options)}` : ''}`,
    );
  }
}
