/**
 * A policy update: the protective parts of a team (the approval policies of handoffs and of tool
 * calls, with their signature requirements) applied to a chain or conversation already running, so
 * a tightened team reaches what started under the looser one. An update may only tighten: one that
 * would let any handoff or tool call of the chain through with less than it needs now is refused,
 * each problem naming what would loosen (docs/authority.md).
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalRule } from '../approvals';
import { approvalPolicyCheck, approvalRuleCheck } from '../approvalPolicy';
import { arrayOf, type Check, isRecord, nonEmptyString, recordOf, shape, shown, string } from '../check';
import type { ToolApprovalSpec } from '../controls';
import type { TeamSpec } from '../team';
import { toolApprovalSpec } from '../toolApproval';
import { versionIdOf } from '../version';
import { ENTRY_SOURCE, resolveApprovalPolicy } from './policy';
import { policyLoosening } from './protective';

/** What of one agent a policy carries: approval of handoffs into it, and of its tools' calls. */
export interface AgentPolicy {
  approval?: ApprovalPolicy;
  /** By tool name; a tool left out runs without approval. */
  toolApprovals?: Record<string, ToolApprovalSpec>;
}

/** The protective parts of a team: what a policy update carries and what a chain runs under. */
export interface TeamPolicy {
  /** The team version the policy was taken from (`support@v2`). */
  version: string;
  /** The team's approval rules for edges and targets. */
  approvals: ApprovalRule[];
  /** Each agent's own approval and tool approvals, by agent id. */
  agents: Record<string, AgentPolicy>;
}

/** What a chain runs under, as the `policy` query answers: its team's policy and its run's own approval rules. */
export interface ChainPolicy extends TeamPolicy {
  runApprovals: ApprovalRule[];
}

/** A team made of a policy alone, to weigh a chain's policy against another (agent specs reduced to their approvals). */
export function policyTeam(policy: TeamPolicy): Pick<TeamSpec, 'agents' | 'approvals'> {
  return { agents: policy.agents as unknown as TeamSpec['agents'], approvals: policy.approvals };
}

/** Input of the `tightenPolicy` update. */
export interface PolicyUpdateInput {
  policy: TeamPolicy;
  /** Who applies it, as recorded in history (an operator's name or a service's). */
  appliedBy: string;
  /** Why, for the audit. */
  reason?: string;
}

/** What a policy update did: the policy versions before and after, and what it tightened (empty: the chain already ran under it). */
export interface PolicyUpdateResult {
  from: string;
  to: string;
  tightened: string[];
}

/** The recorded event of an applied policy update (memo `batonApprovalEvent`, type `policy_updated`). */
export interface PolicyUpdatedRecord extends PolicyUpdateResult {
  type: 'policy_updated';
  appliedBy: string;
  reason?: string;
  /** The policy as applied, so a replay or a resume rebuilds the chain under it. */
  policy: TeamPolicy;
  at: string;
}

/** Longest `appliedBy` and `reason` an update may carry. */
const APPLIED_BY_CHARS = 200;
const REASON_CHARS = 1000;
/** The most agents and rules a policy may carry: far beyond any team, well inside what history takes. */
const MAX_ENTRIES = 500;

/** The protective parts of `team`, as a policy update carries them. */
export function teamPolicyOf(team: Pick<TeamSpec, 'agents' | 'approvals' | 'version' | 'policyVersion'>): TeamPolicy {
  const agents: Record<string, AgentPolicy> = {};
  for (const [id, a] of Object.entries(team.agents)) {
    agents[id] = {
      ...(a.approval ? { approval: a.approval } : {}),
      ...(a.toolApprovals && Object.keys(a.toolApprovals).length > 0 ? { toolApprovals: a.toolApprovals } : {}),
    };
  }
  return { version: team.policyVersion ?? versionIdOf(team), approvals: team.approvals, agents };
}

const toolApprovalCheck: Check = (v, key) => {
  const problems: string[] = [];
  if (v === true || !isRecord(v))
    return [
      `"${key}" must be a tool approval {when?, approvers?, requireSignature?, timeout?, onTimeout?, …}, got ${shown(v)}`,
    ];
  toolApprovalSpec(v, problems, key);
  return problems;
};

const policyCheck = shape({
  version: nonEmptyString,
  approvals: arrayOf(approvalRuleCheck, 'approval rules {to, from?, approvers?, …}'),
  agents: recordOf(
    shape({ approval: approvalPolicyCheck, toolApprovals: recordOf(toolApprovalCheck) }, ['approval', 'toolApprovals']),
  ),
});

/** Problems with a policy update as it arrived (any client), each naming the field and what would be valid. */
export function policyUpdateProblems(raw: unknown): string[] {
  const problems = shape({ policy: policyCheck, appliedBy: nonEmptyString, reason: string }, ['reason'])(
    raw,
    'tightenPolicy',
  );
  if (!isRecord(raw)) return problems;
  if (typeof raw.appliedBy === 'string' && raw.appliedBy.length > APPLIED_BY_CHARS)
    problems.push(`"tightenPolicy.appliedBy" is ${raw.appliedBy.length} characters; at most ${APPLIED_BY_CHARS}`);
  if (typeof raw.reason === 'string' && raw.reason.length > REASON_CHARS)
    problems.push(`"tightenPolicy.reason" is ${raw.reason.length} characters; at most ${REASON_CHARS}`);
  const p = raw.policy;
  if (
    isRecord(p) &&
    ((Array.isArray(p.approvals) && p.approvals.length > MAX_ENTRIES) ||
      (isRecord(p.agents) && Object.keys(p.agents).length > MAX_ENTRIES))
  )
    problems.push(`"tightenPolicy.policy" carries more than ${MAX_ENTRIES} rules or agents`);
  return problems;
}

/** `team` with `policy`'s protective parts in place of its own (agents the team lacks are left out). */
export function withPolicy<T extends Pick<TeamSpec, 'agents' | 'approvals' | 'policyVersion'>>(
  team: T,
  policy: TeamPolicy,
): T {
  const agents = Object.fromEntries(
    Object.entries(team.agents).map(([id, a]) => {
      const { approval: _a, toolApprovals: _t, ...rest } = a;
      const p = policy.agents[id] ?? {};
      return [
        id,
        {
          ...rest,
          ...(p.approval ? { approval: p.approval } : {}),
          ...(p.toolApprovals ? { toolApprovals: p.toolApprovals } : {}),
        },
      ];
    }),
  );
  return { ...team, agents, approvals: policy.approvals, policyVersion: policy.version };
}

/**
 * The run's own approval rules under `policy`: a rule the policy asks more than is dropped, so the
 * policy reaches the handoffs the rule covers (a run's rules are matched before the team's).
 */
export function runRulesUnder(
  team: Pick<TeamSpec, 'agents' | 'approvals'>,
  runRules: readonly ApprovalRule[],
  policy: TeamPolicy,
): ApprovalRule[] {
  const after = withPolicy({ ...team, policyVersion: undefined }, policy);
  return runRules.filter((r) => {
    const own = r.required === false ? undefined : r;
    const froms = r.from !== undefined ? [r.from] : [ENTRY_SOURCE, ...Object.keys(team.agents)];
    return !froms.some((from) => policyLoosening(resolveApprovalPolicy(after, [], from, r.to), own) !== undefined);
  });
}

/** What applying `policy` to a chain on `team` (with its run's rules) would loosen, each naming the handoff or tool and what is allowed. */
export function policyLoosenings(
  team: Pick<TeamSpec, 'agents' | 'approvals'>,
  runRules: readonly ApprovalRule[],
  policy: TeamPolicy,
): string[] {
  return compare(team, runRules, policy).loosened;
}

/** What applying `policy` would tighten, in words; empty when the chain already runs under as much. */
export function policyTightenings(
  team: Pick<TeamSpec, 'agents' | 'approvals'>,
  runRules: readonly ApprovalRule[],
  policy: TeamPolicy,
): string[] {
  return compare(team, runRules, policy).tightened;
}

function compare(
  team: Pick<TeamSpec, 'agents' | 'approvals'>,
  runRules: readonly ApprovalRule[],
  policy: TeamPolicy,
): { loosened: string[]; tightened: string[] } {
  const after = withPolicy({ ...team, policyVersion: undefined }, policy);
  const rulesAfter = runRulesUnder(team, runRules, policy);
  const loosened: string[] = [];
  const tightened: string[] = [];
  const agents = Object.keys(team.agents);
  for (const to of agents) {
    for (const from of [ENTRY_SOURCE, ...agents]) {
      const b = resolveApprovalPolicy(team, runRules, from, to);
      const a = resolveApprovalPolicy(after, rulesAfter, from, to);
      const edge = from === ENTRY_SOURCE ? `a start at ${to}` : `the handoff ${from} → ${to}`;
      const why = policyLoosening(b, a);
      if (why) loosened.push(`${edge} ${why}; allowed: the same approval or more`);
      else if (policyLoosening(a, b)) tightened.push(`${edge} now needs ${describe(a)}`);
    }
    for (const tool of new Set([
      ...Object.keys(team.agents[to]!.toolApprovals ?? {}),
      ...Object.keys(after.agents[to]!.toolApprovals ?? {}),
    ])) {
      const b = team.agents[to]!.toolApprovals?.[tool];
      const a = after.agents[to]!.toolApprovals?.[tool];
      const what = `tool "${tool}" of agent "${to}"`;
      const why = toolLoosening(b, a);
      if (why) loosened.push(`${what} ${why}; allowed: the same approval or more`);
      else if (toolLoosening(a, b)) tightened.push(`${what} now needs ${describe(a)}`);
    }
  }
  return { loosened, tightened };
}

/** How approval of a tool's calls under `after` asks less than under `before`; `undefined` when it asks as much or more. */
export function toolLoosening(
  before: ToolApprovalSpec | undefined,
  after: ToolApprovalSpec | undefined,
): string | undefined {
  const live = (s: ToolApprovalSpec | undefined) => (s && s.required !== false ? s : undefined);
  const b = live(before);
  const a = live(after);
  if (!b) return undefined;
  if (!a) return 'would run without approval';
  // Conditions decide which calls wait: any other set than the same (or none, every call) could let a call through.
  if (a.when && a.when.length > 0 && JSON.stringify(a.when) !== JSON.stringify(b.when ?? []))
    return `would need approval only when ${JSON.stringify(a.when).slice(0, 200)}, not ${b.when?.length ? JSON.stringify(b.when).slice(0, 200) : 'on every call'}`;
  const { when: _bw, ...bp } = b;
  const { when: _aw, ...ap } = a;
  return policyLoosening(bp, ap);
}

function describe(p: ApprovalPolicy | undefined): string {
  if (!p) return 'no approval';
  return `approval${p.approvers ? ` by ${p.approvers.join(', ')}` : ''}${p.requireSignature ? ', signed' : ''}`;
}
