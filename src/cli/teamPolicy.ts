/**
 * `baton team diff --running <module>` and `baton team apply-policy <module> --by <you>`: the chains and
 * conversations on a task queue that run under a looser approval policy than a team's, and applying
 * the team's policy to them (the `tightenPolicy` update; each chain refuses what would loosen it).
 */
import { applyTeamPolicy, type PolicyStanding, policyStandings } from '../client/policy';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { UsageError } from './args';
import { connect } from './connect';
import { loadTeamModule } from './team';

/** What `baton team diff --running` prints: one line per chain on a looser policy, or that none is. */
export async function runningDiff(
  module: string,
  taskQueue: string | undefined,
  json: boolean,
  out: (line: string) => void,
): Promise<number> {
  const team = loadTeamModule(module).team.spec();
  const { client } = await connect();
  const standings = await policyStandings(client, team, { taskQueue: taskQueue ?? DEFAULT_TASK_QUEUE });
  const looser = standings.filter((s) => s.looser.length > 0 || s.unreachable);
  if (json) out(JSON.stringify(standings, null, 2));
  else if (looser.length === 0)
    out(
      `no running chain on ${taskQueue ?? DEFAULT_TASK_QUEUE} runs under a looser policy than ${team.version!.id} (${standings.length} running)`,
    );
  else for (const line of looserLines(looser, team.version!.id)) out(line);
  return 0;
}

/** Lines naming each chain that runs under a looser policy than `current`, and what it lacks. */
export function looserLines(standings: PolicyStanding[], current: string): string[] {
  return standings.flatMap((s) =>
    s.unreachable
      ? [`${s.workflowId}  (${s.workflowType}) could not be asked: ${s.unreachable}`]
      : [
          `${s.workflowId}  (${s.workflowType}) runs under ${s.runsUnder}, looser than ${current}:`,
          ...s.looser.map((l) => `    ${l}`),
        ],
  );
}

/** `baton team apply-policy <module> --by <you> [--reason <text>] [--task-queue <q>] [--json]`. */
export async function applyPolicyCommand(
  module: string,
  options: { by?: string; reason?: string; taskQueue?: string; json: boolean },
  out: (line: string) => void,
): Promise<number> {
  if (!options.by || options.by.trim() === '')
    throw new UsageError("--by <name> is required: who applies the policy, recorded in each chain's history");
  const team = loadTeamModule(module).team.spec();
  const { client } = await connect();
  const outcomes = await applyTeamPolicy(client, team, {
    appliedBy: options.by,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
  });
  if (options.json) out(JSON.stringify(outcomes, null, 2));
  else {
    for (const o of outcomes) {
      if (o.outcome === 'tightened')
        out(`${o.workflowId}  tightened (${o.result!.from} → ${o.result!.to}): ${o.result!.tightened.join('; ')}`);
      else if (o.outcome !== 'unchanged') out(`${o.workflowId}  ${o.outcome}: ${(o.problems ?? []).join('; ')}`);
    }
    const count = (k: string) => outcomes.filter((o) => o.outcome === k).length;
    out(
      `${team.version!.id}: ${count('tightened')} tightened, ${count('unchanged')} already under it, ${count('refused')} refused, ${count('unreachable')} unreachable`,
    );
  }
  return outcomes.some((o) => o.outcome === 'refused' || o.outcome === 'unreachable') ? 1 : 0;
}
