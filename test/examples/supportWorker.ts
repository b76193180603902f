/**
 * A worker process for the support team, started by the support example's tests so that it can
 * die for real. With `SUPPORT_CRASH_AFTER_REFUND=1` its first attempt of `issueRefund` issues the
 * refund and then SIGKILLs its own process, before the activity can report its result.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createWorker, defineAgent, defineTool, Team } from '../../src';
import { issueRefund, refundsAgent, team as supportTeam } from '../../examples/support/team';

function teamOfThisProcess(): Team {
  if (process.env.SUPPORT_CRASH_AFTER_REFUND !== '1') return supportTeam;
  const crashingRefund = defineTool({
    ...issueRefund,
    execute: async (args, context) => {
      const refund = await issueRefund.execute(args, context);
      if (context.attempt === 1) process.kill(process.pid, 'SIGKILL');
      return refund;
    },
  });
  return new Team(
    supportTeam.agents.map((a) =>
      a.id === refundsAgent.id
        ? defineAgent({ ...a, handoffs: a.handoffs && [...a.handoffs], tools: [crashingRefund] })
        : a,
    ),
  );
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const worker = await createWorker({ team: teamOfThisProcess(), taskQueue: process.env.SUPPORT_TASK_QUEUE });
  process.stdout.write('ready\n');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
