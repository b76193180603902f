import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { createWorker, DEPLOYMENT_ENV, deploymentFromEnv, ensureSearchAttributes } from '../worker';
import { parse, UsageError } from './args';
import { connect, temporalAddress, temporalNamespace } from './connect';
import type { Command } from './context';
import { loadTeamModule } from './team';

/** `baton worker --team <module>`: serve a team until interrupted. */
export const workerCommand: Command = {
  synopsis: 'baton worker --team <module> [--task-queue baton] [--deployment <name> --build-id <id>]',
  summary: "serve a team's agents",
  help: `Options:
  --team <module>        a module exporting \`team\` (new Team([...])) and optionally \`hooks\`; TypeScript works
  --task-queue <name>    the task queue to poll (default baton)
  --deployment <name>    the Worker Deployment this worker is a version of (default $${DEPLOYMENT_ENV.name})
  --build-id <id>        this version's build id, e.g. a release or a commit (default $${DEPLOYMENT_ENV.buildId})

With a deployment, chains stay on the version they started on: this version's workers drain them
while new chains start on the version set current (temporal worker deployment set-current-version
--deployment-name <name> --build-id <id>); conversations move to the current version between turns.
Without one, any worker on the task queue takes any task, and a step a worker's team cannot run
(TeamMismatchError) waits for one that can. See docs/operating.md.

Runs baton's workflows and the team's model and tool calls until Ctrl-C or SIGTERM, then shuts down
gracefully (a second signal exits at once). Run as many as you need, on as many machines.`,
  async run(argv, { out, err, interrupted }) {
    const { values, positionals } = parse(argv, {
      team: { type: 'string' },
      'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
      deployment: { type: 'string' },
      'build-id': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if ((values.deployment === undefined) !== (values['build-id'] === undefined))
      throw new UsageError(
        '--deployment and --build-id go together: a worker deployment version is a name and a build id',
      );
    const deployment =
      values.deployment !== undefined ? { name: values.deployment, buildId: values['build-id']! } : deploymentFromEnv();
    const mod = loadTeamModule(values.team);
    const { connection, native } = await connect();
    await ensureSearchAttributes(connection, temporalNamespace()).catch((e: Error) =>
      err(`warning: could not check baton's search attributes: ${e.message}`),
    );
    const w = await createWorker({
      team: mod.team,
      hooks: mod.hooks,
      connection: await native(),
      taskQueue: values['task-queue'],
      deployment: deployment ?? false,
    });
    const version = deployment ? `, deployment version ${deployment.name}.${deployment.buildId}` : '';
    out(
      `baton worker: team ${mod.team.version.id} (agents ${mod.team.ids.join(', ')}) on task queue "${values['task-queue']}" at ${temporalAddress()}${version}`,
    );
    void interrupted.then((signal) => {
      err(`baton worker: ${signal}: shutting down (again to exit at once)`);
      if (w.getState() === 'RUNNING') w.shutdown();
    });
    await w.run();
    return 0;
  },
};
