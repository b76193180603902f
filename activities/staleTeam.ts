/**
 * The check a worker makes before it starts a chain (its team snapshot, with no team asked of it):
 * a worker whose team is older than the newest version of its team registered on its task queue
 * refuses with `TeamMismatchError`, so the chain's workflow asks the queue again and a worker of the
 * newest team takes it (docs/chains.md, "A worker that comes back"). The registry is read with a
 * describe of the queue's `teamRegistry` workflow (its memo), at most once a second.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { TeamMismatchError, toApplicationFailure } from '../src/common/errors';
import type { TeamSpec } from '../src/common/team';
import { newestTeam, TEAM_REGISTRY_MEMO, teamRegistryId, type TeamRegistryState } from '../src/common/teamRegistry';

/** How long a worker trusts what it read of the registry. */
const FRESH_MS = 1000;

/** A check that throws `TeamMismatchError` (as an `ApplicationFailure`) when this worker's team is older than the newest registered. */
export function staleTeamCheck(
  client: (() => Client) | undefined,
  spec: () => TeamSpec,
): (step: string) => Promise<void> {
  const read = new Map<string, { at: number; state: Promise<TeamRegistryState | undefined> }>();
  const registry = (queue: string): Promise<TeamRegistryState | undefined> => {
    const cached = read.get(queue);
    if (cached && Date.now() - cached.at < FRESH_MS) return cached.state;
    const state = registryOf(client!(), queue);
    read.set(queue, { at: Date.now(), state });
    return state;
  };
  return async (step) => {
    const own = spec().version;
    if (!client || !own) return;
    const queue = Context.current().info.taskQueue;
    const state = await registry(queue);
    const newest = newestTeam(state, own.name);
    const mine = state?.teams.find((t) => t.name === own.name && t.hash === own.hash);
    // Not yet in the registry (its registration not taken yet): nothing says it is older.
    if (!newest || !mine || newest.hash === own.hash) return;
    throw toApplicationFailure(
      new TeamMismatchError({
        version: newest.id,
        worker: own.id,
        step,
        missing: [
          `the newest team registered on task queue "${queue}": ${newest.id} (registered ${newest.at}); this worker runs ${own.id} (registered ${mine.at}) and starts no new chains`,
        ],
      }),
    );
  };
}

async function registryOf(client: Client, queue: string): Promise<TeamRegistryState | undefined> {
  try {
    const described = await client.workflow.getHandle(teamRegistryId(queue)).describe();
    return described.memo?.[TEAM_REGISTRY_MEMO] as TeamRegistryState | undefined;
  } catch {
    // None yet, or unreadable here (its memo encrypted with a key this worker lacks, Temporal not answering now): it says nothing against this worker.
    return undefined;
  }
}
