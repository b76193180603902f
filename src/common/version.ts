/**
 * Team versions as a run records them: the fingerprint of what a chain depends on, and what one
 * step of it needs from the worker that runs the step. Computed by `src/agents/version` when the
 * team snapshot is taken; the workflow only copies these strings, it never hashes.
 *
 * Workflow-safe: no I/O.
 */

/**
 * A team's version, recorded with its snapshot: `support@2026-11-24` when the team is given a
 * label (`new Team(agents, {name: 'support', version: '2026-11-24'})`), `support@3f2a9c1b7d0e`
 * (the hash's first 12 digits) when not.
 */
export interface TeamVersion {
  /** What the search attribute `BatonTeam`, the audit and `baton pending` show. */
  id: string;
  /** The team's name. @default "team" */
  name: string;
  /** The readable label the team was given, if any. */
  label?: string;
  /**
   * SHA-256 (hex) of everything a run depends on: each agent's instructions, model, tools and their
   * JSON schemas, the handoff graph, approvals, guardrails and the other policies. Two teams with
   * the same hash run chains the same way, whatever their labels.
   */
  hash: string;
  /**
   * Fingerprints of the parts a worker must have to run a step of the chain, by part:
   * `tool:<agent>/<tool>` (its name and parameters), `answer:<agent>` (its output type and its
   * handoffs' input types), `guardrail:<agent>/<stage>/<name>`, `onHandoff:<agent>/<target>`,
   * `remote:<agent>/<remote>`.
   */
  parts: Record<string, string>;
}

/**
 * What one step of a chain needs from the worker that runs it, taken from the run's snapshot and
 * sent with the step's activity. A worker that lacks any of it refuses the step with
 * `TeamMismatchError`, so that a worker that has it can take it.
 */
export interface TeamNeed {
  /** The run's team version id (`support@…`), or `(unversioned)` for snapshots taken before versions. */
  version: string;
  /** Parts (see {@link TeamVersion.parts}) with the fingerprint the run recorded; `""` asks only that the part exists. */
  parts?: Record<string, string>;
  /** The whole team, by hash: a specialist's chain runs on the team of the chain that delegated to it. */
  hash?: string;
  /** The model provider the step calls. */
  provider?: string;
  /** Times workers refused this step so far: a step refused once is not dispatched eagerly to the workflow's own worker again. */
  refused?: number;
}

/** The version id of snapshots taken before teams had versions. */
export const UNVERSIONED = '(unversioned)';

/** A team version id for messages: the id, or {@link UNVERSIONED}. */
export function versionIdOf(team: { version?: TeamVersion }): string {
  return team.version?.id ?? UNVERSIONED;
}

/** Part keys, so the workflow, the worker and the messages spell them alike. */
export const TeamPart = {
  /** A tool of an agent: its name and parameters. */
  tool: (agent: string, tool: string) => `tool:${agent}/${tool}`,
  /** What the worker checks an agent's answers against: its output type and its handoffs' input types. */
  answer: (agent: string) => `answer:${agent}`,
  /** A custom guardrail of an agent, on its input or its output. */
  guardrail: (agent: string, stage: 'input' | 'output', name: string) => `guardrail:${agent}/${stage}/${name}`,
  /** An agent's `onHandoff` check for a target. */
  onHandoff: (agent: string, target: string) => `onHandoff:${agent}/${target}`,
  /** A remote agent an agent delegates to: where its tasks go and how the worker authenticates there. */
  remote: (agent: string, remote: string) => `remote:${agent}/${remote}`,
} as const;

/** A part key in words: `tool "issueRefund" of agent "refunds"`. */
export function describePart(key: string): string {
  const [kind, rest = ''] = splitOnce(key, ':');
  const [agent, ...path] = rest.split('/');
  switch (kind) {
    case 'tool':
      return `tool "${path.join('/')}" of agent "${agent}"`;
    case 'answer':
      return `the output type and handoff input types of agent "${agent}"`;
    case 'guardrail':
      return `${path[0]} guardrail "${path.slice(1).join('/')}" of agent "${agent}"`;
    case 'onHandoff':
      return `the onHandoff check of agent "${agent}" for "${path.join('/')}"`;
    case 'remote':
      return `remote agent "${path.join('/')}" that agent "${agent}" delegates to`;
    default:
      return key;
  }
}

/** The agent a part key belongs to. */
export function agentOfPart(key: string): string {
  return (splitOnce(key, ':')[1] ?? '').split('/')[0] ?? '';
}

function splitOnce(text: string, sep: string): [string, string?] {
  const i = text.indexOf(sep);
  return i < 0 ? [text] : [text.slice(0, i), text.slice(i + 1)];
}

/**
 * Where a conversation's team changed: between turns, when the conversation moved to a worker of
 * another deployment version, or by a migration. Recorded as a `team_changed` conversation event.
 */
export interface TeamChange {
  from: string;
  to: string;
  /** The turn the new team answers first. */
  beforeTurn: number;
  /** The worker deployment version the conversation moved to, when it moved by a deploy (`deployment.buildId`). */
  deployment?: string;
}
