/**
 * The approval rules an export's events are held to (`baton audit --verify`): those the chain's
 * opening event lists, until a `policy_updated` record applies a tighter policy; from that record
 * on, the updated policy's. A tool call or handoff after the update that the tighter policy gates
 * must name its approval; an approval asked after it must have been asked as the tighter policy
 * says (its approvers, a signature where it requires one) and decided by one of its approvers.
 * Approvals asked before an update keep the rules they were asked under, as the workflow keeps
 * them. Each problem names the update's record, the call and the rule.
 */
import type { ApprovalPolicy, ApprovalRecord, ApprovalRule, PendingApproval } from '../common/approvals';
import type { ToolApprovalSpec } from '../common/controls';
import { ENTRY_SOURCE, resolveApprovalPolicy } from '../common/authority/policy';
import {
  type AgentPolicy,
  policyLoosenings,
  policyUpdateProblems,
  runRulesUnder,
  type TeamPolicy,
} from '../common/authority/policyUpdate';
import type { TeamSpec } from '../common/team';
import type { ExportedChain } from './export';

/** The policy update whose rules are in force: its place in the export and what it says of itself. */
export interface PolicyUpdateSeen {
  seq: number;
  from: string;
  to: string;
  appliedBy: string;
}

/** The approval rules in force at a point of a chain's events. */
export interface RulesInForce {
  /** Tools whose calls need approval (`agent/tool`), as the chain's opening event lists them. */
  toolApprovals: Record<string, ToolApprovalSpec>;
  /** The run's rules, the team's rules, each agent's own policy as a rule (the chain event's order). */
  handoffApprovals: ApprovalRule[][];
  /** The latest update applied, when one was. */
  update?: PolicyUpdateSeen;
  /**
   * The chain runs on a team other than the one the export lists (a run before it moved teams): its
   * rules are not in the export, so an update is taken as the chain applied it, its loosening not judged.
   */
  foreign?: boolean;
}

/** The rules a chain opens with. */
export function rulesOfChain(header: ExportedChain): RulesInForce {
  return { toolApprovals: header.toolApprovals, handoffApprovals: header.handoffApprovals };
}

/** The policy the rules give the handoff `from` → `to` (`(start)` for an entry). */
export function handoffPolicy(rules: RulesInForce, from: string, to: string): ApprovalPolicy | undefined {
  return resolveApprovalPolicy(teamOf(rules), rules.handoffApprovals[0] ?? [], from, to);
}

/**
 * The rules after the `policy_updated` event `ev` at `seq`, or the problem with it: a record that
 * carries no policy, or one that loosens what the chain ran under (the workflow applies only updates
 * that tighten, so such a record was not written by it).
 */
export function rulesAfterUpdate(
  before: RulesInForce,
  seq: number,
  ev: Record<string, unknown>,
): RulesInForce | string {
  const problems = policyUpdateProblems({ policy: ev.policy, appliedBy: ev.appliedBy });
  if (problems.length > 0 || typeof ev.from !== 'string' || typeof ev.to !== 'string') {
    return `a policy_updated record must carry {from, to, appliedBy, policy} as the chain applied it: ${problems[0] ?? 'its from and to are the policy versions'}`;
  }
  const policy = ev.policy as TeamPolicy;
  const team = teamOf(before, [
    ...Object.keys(policy.agents),
    ...policy.approvals.flatMap((r) => [r.to, ...(r.from !== undefined ? [r.from] : [])]),
  ]);
  const [runRules = []] = before.handoffApprovals;
  const loosened = before.foreign ? [] : policyLoosenings(team, runRules, policy);
  if (loosened.length > 0)
    return `the policy update ${ev.from} → ${ev.to} loosens what the chain ran under (${loosened[0]}): a chain applies only updates that tighten, so this record was changed`;
  const agents = Object.entries(policy.agents);
  return {
    toolApprovals: Object.fromEntries(
      agents.flatMap(([id, a]) => Object.entries(a.toolApprovals ?? {}).map(([tool, spec]) => [`${id}/${tool}`, spec])),
    ),
    handoffApprovals: [
      runRulesUnder(team, runRules, policy),
      policy.approvals,
      agents.flatMap(([id, a]) => (a.approval ? [{ ...a.approval, to: id }] : [])),
    ],
    update: { seq, from: ev.from, to: ev.to, appliedBy: String(ev.appliedBy) },
  };
}

/** Why a call that ran naming no approval broke the rules in force; `what` names the call. */
export function unapprovedProblem(rules: RulesInForce, what: string, policy: ApprovalPolicy): string {
  const u = rules.update;
  if (!u) return `${what} happened, and the chain's approval rules need an approval for it, but it names none`;
  return `${what} happened after the policy update at event #${u.seq} (${u.from} → ${u.to}, applied by ${u.appliedBy}), under which it needs ${rule(policy)}, but it names none: a call after a tightening must run after the decision the tighter policy asks for`;
}

/**
 * Why the approval `request` (with its decision) a call ran under does not meet `policy`, the rule
 * for that call in the rules it was asked under (`under`); nothing when it does, or when it was
 * asked under the chain's opening rules. `reassigned`: those `approval_escalated` events handed it to.
 */
export function askedUnderProblem(
  under: RulesInForce,
  what: string,
  policy: ApprovalPolicy | undefined,
  request: Pick<PendingApproval, 'handoffId' | 'approvers' | 'requireSignature'> & { reassigned?: string[] },
  decision: ApprovalRecord,
): string | undefined {
  const u = under.update;
  if (!u || !policy) return undefined;
  const broke = (how: string) =>
    `${what} under approval ${request.handoffId}, asked after the policy update at event #${u.seq} (${u.from} → ${u.to}, applied by ${u.appliedBy}), whose rule for it is ${rule(policy)}, but ${how}`;
  if (policy.requireSignature === true && request.requireSignature !== true)
    return broke('the request did not require a signed decision');
  const allowed = allowedApprovers(policy);
  if (!allowed) return undefined;
  const others = (request.approvers ?? []).filter((a) => !allowed.includes(a));
  if (request.approvers === undefined || others.length > 0)
    return broke(`the request let ${request.approvers === undefined ? 'anyone' : others.join(', ')} decide`);
  // A quorum or staged approval is decided by its votes, each checked against its slot.
  // Those an escalation of the chain reassigned it to (as its export records) decide it as well.
  const deciders = [...allowed, ...(request.reassigned ?? [])];
  if (decision.outcome === 'timed_out' || decision.votes !== undefined || deciders.includes(decision.approver ?? ''))
    return undefined;
  return broke(`${decision.approver ?? 'an unnamed approver'} decided it`);
}

/** Who may decide under `policy` (its approvers, its quorum's or stages' slots, those an escalation reassigns to); `undefined`: anyone. */
function allowedApprovers(policy: ApprovalPolicy): string[] | undefined {
  const named = [
    ...(policy.approvers ?? []),
    ...(policy.quorum?.of ?? []),
    ...(policy.stages ?? []).flatMap((s) => s.approvers),
  ];
  if (named.length === 0) return undefined;
  return [...named, ...(policy.escalation ?? []).flatMap((s) => s.reassign ?? [])];
}

function rule(policy: ApprovalPolicy): string {
  const who = allowedApprovers(policy);
  return `approval${who ? ` by ${who.join(', ')}` : ''}${policy.requireSignature ? ', signed' : ''}`;
}

/**
 * A team made of the rules, to resolve and compare them as the workflow does (each agent reduced to
 * its approvals): every agent a rule or a tool approval names, with or without an approval of its own
 * (a rule into an agent that has none is still a rule a loosening could drop), and the agents `also` names.
 */
function teamOf(rules: RulesInForce, also: readonly string[] = []): Pick<TeamSpec, 'agents' | 'approvals'> {
  const [runRules = [], teamRules = [], agentRules = []] = rules.handoffApprovals;
  const agents: Record<string, AgentPolicy> = {};
  const named = [...runRules, ...teamRules, ...agentRules].flatMap((r) => [
    r.to,
    ...(r.from !== undefined ? [r.from] : []),
  ]);
  for (const id of [...named, ...also]) if (id !== ENTRY_SOURCE) agents[id] ??= {};
  for (const r of agentRules) {
    const { to, from: _from, ...approval } = r;
    agents[to] = { approval };
  }
  for (const [key, spec] of Object.entries(rules.toolApprovals)) {
    const cut = key.indexOf('/');
    const [agent, tool] = [key.slice(0, cut), key.slice(cut + 1)];
    agents[agent] = { ...agents[agent], toolApprovals: { ...agents[agent]?.toolApprovals, [tool]: spec } };
  }
  return { agents: agents as unknown as TeamSpec['agents'], approvals: teamRules };
}
