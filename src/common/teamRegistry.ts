/**
 * The teams registered on a task queue: every worker that starts registers its team version (a
 * signal to the queue's `teamRegistry` workflow), and the registry keeps, per team name, each
 * version with when it was first registered. A worker whose team is older than the newest version
 * of its team registered on its queue does not start new chains (docs/chains.md), with Worker
 * Deployments or without.
 *
 * Workflow-safe: no I/O.
 */
import { defineSignal } from '@temporalio/workflow';

/** The registry workflow's type. */
export const TEAM_REGISTRY_WORKFLOW = 'teamRegistry';

/** The registry of task queue `taskQueue`: one workflow per queue. */
export function teamRegistryId(taskQueue: string): string {
  return `baton-teams:${taskQueue}`;
}

/** One team version as a worker registers it. */
export interface TeamRegistration {
  /** The team's name (`support`). */
  name: string;
  /** Its version id (`support@2026-11-24`). */
  id: string;
  hash: string;
  /** Register it as the newest even when it was registered before: a deliberate rollback. */
  promote?: boolean;
  /** The worker's identity, for the record. */
  worker?: string;
}

/** A registered version: the newest of a name is the one registered (or promoted) last. */
export interface RegisteredTeam {
  name: string;
  id: string;
  hash: string;
  /** When it was first registered, or last promoted (ISO 8601, workflow time). */
  at: string;
  /** The registration order on the queue, which decides newest when two have the same time. */
  seq: number;
}

/** The registry's input and its memo (`batonTeams`): what it carries across continue-as-new. */
export interface TeamRegistryState {
  teams: RegisteredTeam[];
  seq: number;
}

/** Memo key of the registry's teams, read by workers with a describe (no worker needed to answer). */
export const TEAM_REGISTRY_MEMO = 'batonTeams';

/** Signal: register a team version on the queue. */
export const registerTeamSignal = defineSignal<[TeamRegistration]>('registerTeam');

/** Versions kept per team name: the newest ones. */
export const VERSIONS_KEPT = 20;

/** The newest version of `name` in `state`, if any. */
export function newestTeam(state: TeamRegistryState | undefined, name: string): RegisteredTeam | undefined {
  return (state?.teams ?? []).filter((t) => t.name === name).sort((a, b) => b.seq - a.seq)[0];
}

/** `state` with `r` registered at `at` (ms): a version already known keeps its place unless promoted. */
export function registered(state: TeamRegistryState, r: TeamRegistration, at: number): TeamRegistryState {
  const known = state.teams.find((t) => t.name === r.name && t.hash === r.hash);
  if (known && !r.promote) return state;
  const seq = state.seq + 1;
  const entry: RegisteredTeam = { name: r.name, id: r.id, hash: r.hash, at: new Date(at).toISOString(), seq };
  const others = state.teams.filter((t) => !(t.name === r.name && t.hash === r.hash));
  const same = [...others.filter((t) => t.name === r.name), entry]
    .sort((a, b) => b.seq - a.seq)
    .slice(0, VERSIONS_KEPT);
  return { seq, teams: [...others.filter((t) => t.name !== r.name), ...same] };
}

/** Whether `r` is a well-formed registration. */
export function isRegistration(r: unknown): r is TeamRegistration {
  const v = r as Partial<TeamRegistration> | null;
  const short = (s: unknown) => typeof s === 'string' && s !== '' && s.length <= 200;
  return (
    typeof v === 'object' &&
    v !== null &&
    short(v.name) &&
    short(v.id) &&
    short(v.hash) &&
    (v.promote === undefined || typeof v.promote === 'boolean')
  );
}
