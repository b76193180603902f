import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { createWorker, ensureSearchAttributes } from '../worker';
import { parse, UsageError } from './args';
import { connect, temporalAddress, temporalNamespace } from './connect';
import type { Command } from './context';
import { loadTeamModule } from './team';

/** `baton worker --team <module>`: serve a team until interrupted. */
export const workerCommand: Command = {
  synopsis: 'baton worker --team <module> [--task-queue baton]',
  summary: "serve a team's agents",
  help: `Options:
  --team <module>        a module exporting \`team\` (new Team([...])) and optionally \`hooks\`; TypeScript works
  --task-queue <name>    the task queue to poll (default baton)

Runs baton's workflows and the team's model and tool calls until Ctrl-C or SIGTERM, then shuts down
gracefully (a second signal exits at once). Run as many as you need, on as many machines.`,
  async run(argv, { out, err, interrupted }) {
    const { values, positionals } = parse(argv, { team: { type: 'string' }, 'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const mod = loadTeamModule(values.team);
    const { connection, native } = await connect();
    await ensureSearchAttributes(connection, temporalNamespace()).catch((e: Error) => err(`warning: could not check baton's search attributes: ${e.message}`));
    const w = await createWorker({ team: mod.team, hooks: mod.hooks, connection: await native(), taskQueue: values['task-queue'] });
    out(`baton worker: agents ${mod.team.ids.join(', ')} on task queue "${values['task-queue']}" at ${temporalAddress()}`);
    void interrupted.then((signal) => {
      err(`baton worker: ${signal}: shutting down (again to exit at once)`);
      if (w.getState() === 'RUNNING') w.shutdown();
    });
    await w.run();
    return 0;
  },
};
