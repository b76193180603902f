/**
 * A team's version: a stable fingerprint of everything a run depends on, computed from the
 * serializable spec, and the fingerprints of the parts a worker must have to run a step.
 */
import { createHash } from 'node:crypto';
import type { TeamSpec } from '../../common/team';
import { TeamPart, type TeamVersion } from '../../common/version';

/** The name a team has unless it is given one. */
export const DEFAULT_TEAM_NAME = 'team';

/** Digits of the hash a version id shows when the team has no label. */
const SHORT_HASH = 12;

/** How a team names its versions. */
export interface VersionNaming {
  /** @default "team" */
  name?: string;
  /** A readable label, e.g. a date or a release: `support@2026-11-24`. */
  label?: string;
}

/** Problems with a team's name or version label: both go into ids such as `support@2026-11-24`. */
export function namingProblems(naming: VersionNaming): string[] {
  const problems: string[] = [];
  for (const [field, value] of [
    ['name', naming.name],
    ['version', naming.label],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}$/.test(value)) {
      problems.push(
        `team ${field} must be 1 to 64 letters, digits or . _ : + - (starting with a letter or digit), got ${JSON.stringify(value)}`,
      );
    }
  }
  return problems;
}

/** The version of a team spec (whatever `version` it already carries is left out of the hash). */
export function teamVersion(spec: TeamSpec, naming: VersionNaming = {}): TeamVersion {
  const hash = sha256(canonicalJson(versioned(spec)));
  const name = naming.name ?? DEFAULT_TEAM_NAME;
  return {
    id: `${name}@${naming.label ?? hash.slice(0, SHORT_HASH)}`,
    name,
    ...(naming.label !== undefined ? { label: naming.label } : {}),
    hash,
    parts: teamParts(spec),
  };
}

/**
 * What of a spec the version covers: everything but the worker's own facts (its hooks, its
 * namespace), its economics (prices and limits change without changing how a chain runs, and a
 * change of them must not strand the chains running) and the keys it fetched from the team's key sets
 * (a rotation at the identity provider is no new version; the sets' URLs and key ids are).
 */
export function versioned(
  spec: TeamSpec,
): Omit<
  TeamSpec,
  'version' | 'hasHandoffListeners' | 'teamAttribute' | 'approvalAttributes' | 'economics' | 'keySets'
> {
  const {
    version: _v,
    hasHandoffListeners: _h,
    teamAttribute: _a,
    approvalAttributes: _aa,
    economics: _e,
    keySets: _k,
    ...rest
  } = spec;
  return rest;
}

/**
 * The parts a worker runs for a chain, each with a fingerprint: every tool (name and parameters),
 * every agent's answer contract (output type, handoff input types), custom guardrails and
 * `onHandoff` checks, remote agents. A worker whose part differs must not run the step that needs it.
 */
export function teamParts(spec: TeamSpec): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const agent of Object.values(spec.agents)) {
    for (const tool of agent.tools)
      parts[TeamPart.tool(agent.id, tool.name)] = short({ name: tool.name, parameters: tool.parameters });
    const inputs = Object.fromEntries(
      Object.entries(agent.handoffOptions ?? {}).flatMap(([to, o]) => (o.inputSchema ? [[to, o.inputSchema]] : [])),
    );
    parts[TeamPart.answer(agent.id)] = short({ output: agent.outputSchema ?? null, inputs });
    for (const stage of ['input', 'output'] as const) {
      for (const g of agent.guardrails?.[stage] ?? [])
        if (g.kind === 'custom') parts[TeamPart.guardrail(agent.id, stage, g.name)] = short(g);
    }
    for (const [to, o] of Object.entries(agent.handoffOptions ?? {}))
      if (o.onHandoff) parts[TeamPart.onHandoff(agent.id, to)] = '1';
    for (const to of agent.delegates ?? [])
      if (spec.remotes?.[to]) parts[TeamPart.remote(agent.id, to)] = short(spec.remotes[to]);
  }
  return parts;
}

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sorted(v);
  }
  return out;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A part's fingerprint: 16 hex digits of its canonical JSON's hash. */
function short(value: unknown): string {
  return sha256(canonicalJson(value)).slice(0, 16);
}
