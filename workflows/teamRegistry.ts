/**
 * The `teamRegistry` workflow: the team versions registered on one task queue (see
 * `src/common/teamRegistry.ts`). Workers signal it as they start; its memo (`batonTeams`) is what
 * workers read, with a describe, before they start a chain. It continues as new as its history grows.
 */
import { condition, continueAsNew, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import {
  isRegistration,
  registered,
  registerTeamSignal,
  TEAM_REGISTRY_MEMO,
  type TeamRegistryState,
} from '../src/common/teamRegistry';

/** Registrations a run takes before it continues as new (besides whenever Temporal suggests it). */
const REGISTRATIONS_PER_RUN = 500;

export async function teamRegistry(input?: TeamRegistryState): Promise<void> {
  let state: TeamRegistryState = { teams: input?.teams ?? [], seq: input?.seq ?? 0 };
  let taken = 0;
  upsertMemo({ [TEAM_REGISTRY_MEMO]: state });
  setHandler(registerTeamSignal, (r) => {
    taken++;
    // A malformed registration is dropped: it comes from a client, not a baton worker.
    if (!isRegistration(r)) return;
    const next = registered(state, r, Date.now());
    if (next === state) return;
    state = next;
    upsertMemo({ [TEAM_REGISTRY_MEMO]: state });
  });
  await condition(() => taken >= REGISTRATIONS_PER_RUN || workflowInfo().continueAsNewSuggested);
  await continueAsNew<typeof teamRegistry>(state);
}
