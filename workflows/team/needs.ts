/**
 * What each step of a chain needs from the worker that runs it, read from the run's team
 * snapshot: the fingerprints recorded with the snapshot's version (or, for snapshots taken before
 * versions, only that the part exists).
 *
 * Pure: no Temporal API, no I/O.
 */
import type { TeamSpec } from '../../src/common/team';
import { TeamPart, versionIdOf, type TeamNeed } from '../../src/common/version';

/** A need for `keys` of `team`, and a model provider when the step calls one. */
export function needOf(team: TeamSpec, keys: string[], provider?: string): TeamNeed {
  const parts = Object.fromEntries(keys.map((k) => [k, team.version?.parts[k] ?? '']));
  return {
    version: versionIdOf(team),
    ...(keys.length > 0 ? { parts } : {}),
    ...(provider !== undefined ? { provider } : {}),
  };
}

/** A model turn of `agent`: the agent's answer contract on the worker, and the model's provider. */
export const modelNeed = (team: TeamSpec, agent: string, provider: string) =>
  needOf(team, [TeamPart.answer(agent)], provider);

/** A tool call: the tool with the parameters the snapshot recorded. */
export const toolNeed = (team: TeamSpec, agent: string, tool: string) => needOf(team, [TeamPart.tool(agent, tool)]);

/** A custom guardrail's check. */
export const guardrailNeed = (team: TeamSpec, agent: string, stage: 'input' | 'output', name: string) =>
  needOf(team, [TeamPart.guardrail(agent, stage, name)]);

/** A handoff's `onHandoff` check. */
export const onHandoffNeed = (team: TeamSpec, from: string, to: string) => needOf(team, [TeamPart.onHandoff(from, to)]);

/** A call of a remote agent: the remote agent as the snapshot has it, with the worker's credentials for it. */
export const remoteNeed = (team: TeamSpec, agent: string, remote: string) =>
  needOf(team, [TeamPart.remote(agent, remote)]);
