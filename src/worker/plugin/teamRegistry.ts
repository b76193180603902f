/**
 * A worker registers its team version on its task queue as it starts (a signal-with-start of the
 * queue's `teamRegistry` workflow; no worker need be running for it to land), and says loudly when
 * a newer version of its team is already registered there: it will start no new chains.
 */
import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import type { TeamVersion } from '../../common/version';
import {
  newestTeam,
  registerTeamSignal,
  TEAM_REGISTRY_MEMO,
  TEAM_REGISTRY_WORKFLOW,
  teamRegistryId,
  type TeamRegistration,
  type TeamRegistryState,
} from '../../common/teamRegistry';

/** How a worker takes part in its queue's team registry. */
export type TeamRegistryMode = 'register' | 'promote' | false;

/** Register `version` on `taskQueue`; warn when a newer version of the team is registered there. */
export async function registerTeam(
  client: Client,
  taskQueue: string,
  version: TeamVersion,
  mode: Exclude<TeamRegistryMode, false>,
): Promise<void> {
  const registration: TeamRegistration = {
    name: version.name,
    id: version.id,
    hash: version.hash,
    ...(mode === 'promote' ? { promote: true } : {}),
  };
  const handle = await client.workflow.signalWithStart(TEAM_REGISTRY_WORKFLOW, {
    workflowId: teamRegistryId(taskQueue),
    taskQueue,
    args: [{ teams: [], seq: 0 } satisfies TeamRegistryState],
    signal: registerTeamSignal,
    signalArgs: [registration],
  });
  // A registry this worker cannot read (its memo encrypted with a key it lacks) says nothing against it.
  const state = await handle.describe().then(
    (d) => d.memo?.[TEAM_REGISTRY_MEMO] as TeamRegistryState | undefined,
    () => undefined,
  );
  const newest = newestTeam(state, version.name);
  if (
    mode !== 'promote' &&
    newest &&
    newest.hash !== version.hash &&
    state?.teams.some((t) => t.hash === version.hash)
  ) {
    Runtime.instance().logger.warn(
      `baton worker runs team ${version.id}, but ${newest.id} (registered ${newest.at}) is the newest team registered on task queue "${taskQueue}": this worker starts no new chains (their snapshots go to workers of ${newest.id}); it still runs the steps of chains already on ${version.id}. To roll back on purpose, start it with teamRegistry: 'promote'.`,
      { team: version.id, newest: newest.id, taskQueue },
    );
  }
}
