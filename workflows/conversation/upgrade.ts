/**
 * A conversation's team between turns. A conversation is pinned, like a chain, to the worker
 * deployment version it runs on, so a turn never changes workers' versions halfway. Between turns
 * it moves on: when Temporal says the deployment's current version changed, the run continues as
 * new onto it; a run on a version other than the one its snapshot was taken on (or after a turn no
 * worker had the team for) takes a new snapshot before the next turn, and records the change
 * ("team support@v1 → support@v2 before turn 7").
 */
import { workflowInfo } from '@temporalio/workflow';
import { hasPatch } from '../patches';
import type { ConversationState } from '../../src/common/conversation';
import { CONVERSATION_EVENT_MEMO } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import type { ChainState } from '../../src/common/state';
import type { TeamSpec } from '../../src/common/team';
import { versionIdOf } from '../../src/common/version';
import type { ChainEffects } from '../chain/effects';
import type { Chain } from '../chain/state';
import { recordTeam } from '../team/record';

/** The deployment version the current workflow task runs on, as `<deployment>.<buildId>`. */
export function runningVersion(): string | undefined {
  const v = workflowInfo().currentDeploymentVersion;
  return v ? `${v.deploymentName}.${v.buildId}` : undefined;
}

/** Whether the run should continue as new onto the deployment's new current version before the next turn. */
export function movesToCurrentVersion(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged && hasPatch(Patches.CONVERSATION_UPGRADE);
}

/**
 * Before turn `turn`: a new snapshot when the run is on another deployment version than the one
 * its snapshot was taken on, or the last turn found no worker with the team. The active agent goes
 * on with its current instructions; one the team no longer has hands the conversation back to
 * `startAgent`. `true` when the team changed.
 */
export async function refreshBeforeTurn(
  state: ConversationState,
  chain: Chain,
  effects: ChainEffects,
  startAgent: string,
  turn: number,
): Promise<boolean> {
  const here = runningVersion();
  const moved = here !== undefined && state.teamDeployment !== here;
  if (!(moved || state.refreshTeam) || !hasPatch(Patches.CONVERSATION_UPGRADE)) return false;
  delete state.refreshTeam;
  if (here) state.teamDeployment = here;
  const current = await effects.loadTeam();
  const before = chain.state.team;
  if (current.version && before.version?.hash === current.version.hash) return false;
  const next = rebased(chain.state, current, startAgent);
  if (!next) return false;
  chain.state = next;
  const change = {
    from: versionIdOf(before),
    to: versionIdOf(current),
    beforeTurn: turn,
    ...(here ? { deployment: here } : {}),
  };
  recordTeam(effects, current, { ...change, by: 'upgrade' });
  effects.publish({
    [CONVERSATION_EVENT_MEMO]: {
      type: 'team_changed',
      ...change,
      agent: next.agentId,
      at: new Date(effects.now()).toISOString(),
    },
  });
  return true;
}

/** The conversation between turns on `team`; `undefined` when the team has neither the active agent nor `startAgent`. */
export function rebased(s: ChainState, team: TeamSpec, startAgent: string): ChainState | undefined {
  const agent = team.agents[s.agentId] ?? team.agents[startAgent];
  if (!agent) return undefined;
  const messages =
    s.messages[0]?.role === 'system'
      ? [{ role: 'system' as const, content: agent.instructions }, ...s.messages.slice(1)]
      : s.messages;
  return { ...s, team, agentId: agent.id, messages };
}
