/**
 * Policy updates of running chains and conversations (`tightenPolicy`), sent raw as any client
 * could: a tightening (every `refund` call now needs alice's approval, not anyone's) must apply, and a loosening
 * (refunds without approval, a handoff into billing without one) must be refused. Invariant
 * `policy-honoured`: no tool call after a policy update runs without the approval the updated
 * policy requires.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import fc from 'fast-check';
import type { AuditEvent } from '../../../src/audit';
import type { TeamPolicy } from '../../../src/common/authority/policyUpdate';
import { policyQuery, tightenPolicyUpdate } from '../../../src/common/messages';
import { broken, clip, type Harness, type Invariant, operation } from '../harness';
import { openRoots, pick } from '../model';
import { perSystem } from '../systemState';

/** Chains whose `refund` calls need alice's approval since a policy update, by workflow id. */
export const tightened = perSystem(new Set<string>());

/** `policy` with every agent's `refund` calls needing alice's approval (v1 lets anyone approve them). */
function withRefundByAlice(policy: TeamPolicy): TeamPolicy {
  const agents = Object.fromEntries(
    Object.entries(policy.agents).map(([id, a]) => [
      id,
      a.toolApprovals?.refund
        ? { ...a, toolApprovals: { ...a.toolApprovals, refund: { ...a.toolApprovals.refund, approvers: ['alice'] } } }
        : a,
    ]),
  );
  return { ...policy, version: `${policy.version.replace(/\+alice$/, '')}+alice`, agents };
}

/** Ways to loosen a chain's policy. */
const LOOSENINGS: Record<string, (p: TeamPolicy) => TeamPolicy> = {
  refundFree: (p) => ({
    ...p,
    agents: Object.fromEntries(
      Object.entries(p.agents).map(([id, a]) => [
        id,
        {
          ...a,
          toolApprovals: Object.fromEntries(Object.entries(a.toolApprovals ?? {}).filter(([t]) => t !== 'refund')),
        },
      ]),
    ),
  }),
  billingOpen: (p) => ({
    ...p,
    agents: { ...p.agents, billing: { ...p.agents.billing, approval: { required: false } } },
  }),
  payoutByMallory: (p) => ({
    ...p,
    agents: {
      ...p.agents,
      billing: {
        ...p.agents.billing,
        toolApprovals: { ...p.agents.billing?.toolApprovals, payout: { approvers: ['alice', 'mallory'] } },
      },
    },
  }),
};

/** A root's handle and the team's part of the policy it runs under now (none for a root that has no policy yet, or ended). */
async function teamPolicyOf(h: Harness, id: string) {
  const handle = h.system.client.workflow.getHandle(id);
  const chain = await handle.query(policyQuery).catch(() => undefined);
  if (!chain || chain.version === '') return undefined;
  // The query answers the chain's policy with its run's own rules; an update carries the team's parts only.
  const { runApprovals: _run, ...current } = chain;
  return { handle, current };
}

export const policyOperations = [
  operation({
    name: 'policy_tighten',
    group: 'approvals',
    weight: 2,
    params: fc.record({ root: fc.nat() }),
    applies: (m) => openRoots(m).length > 0,
    async run(h, p) {
      const root = pick(openRoots(h.model), p.root)!;
      const found = await teamPolicyOf(h, root.id);
      if (!found) return;
      const { handle, current } = found;
      try {
        const result = await handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: withRefundByAlice(current), appliedBy: 'model-harness' }],
        });
        if (result.tightened.length > 0) tightened.add(root.id);
      } catch (err) {
        // A root that ended meanwhile takes no update; any other refusal of a tightening is broken.
        if (err instanceof WorkflowUpdateFailedError)
          broken(
            h,
            'policy-honoured',
            `a tightening policy update of ${root.id} was refused: ${clip(String(err.cause))}`,
          );
      }
    },
  }),
  operation({
    name: 'policy_loosen',
    group: 'approvals',
    weight: 1,
    params: fc.record({ root: fc.nat(), kind: fc.constantFrom(...Object.keys(LOOSENINGS)) }),
    applies: (m) => openRoots(m).length > 0,
    async run(h, p) {
      const root = pick(openRoots(h.model), p.root)!;
      const found = await teamPolicyOf(h, root.id);
      if (!found) return;
      const { handle, current } = found;
      const outcome = await handle
        .executeUpdate(tightenPolicyUpdate, { args: [{ policy: LOOSENINGS[p.kind]!(current), appliedBy: 'mallory' }] })
        .then(
          (r) => r,
          (err: unknown) => err,
        );
      if (outcome instanceof WorkflowUpdateFailedError) {
        if (!String(outcome.cause).includes('PolicyLoosenedError') && !/would loosen/.test(String(outcome.cause)))
          broken(
            h,
            'no-policy-loosening',
            `a ${p.kind} loosening of ${root.id} was refused for another reason: ${clip(String(outcome.cause))}`,
          );
        return;
      }
      if (!(outcome instanceof Error))
        broken(h, 'no-policy-loosening', `a ${p.kind} loosening of ${root.id} was taken: ${clip(outcome)}`);
    },
  }),
];

/** Every `refund` call of a tightened chain that ran after its policy update ran under alice's approval. */
export const policyInvariants: Invariant[] = [
  {
    name: 'policy-honoured',
    when: 'step',
    async check(h: Harness) {
      for (const id of tightened) {
        const root = h.model.roots.find((r) => r.id === id);
        if (!root || root.kind !== 'chain') continue;
        const events: AuditEvent[] = await h.baton
          .audit(id)
          .then((a) => a.events)
          .catch(() => []);
        const from = events.findIndex((e) => e.kind === 'policy_updated');
        if (from < 0) continue;
        const decided = new Map(
          events.flatMap((e) => (e.kind === 'approval_decided' ? [[e.handoffId, e] as const] : [])),
        );
        // Calls asked before the update keep the policy they were asked under: only those asked after it are held to it.
        const askedAt = new Map(
          events.flatMap((e, i) => (e.kind === 'approval_requested' ? [[e.handoffId, i] as const] : [])),
        );
        for (const [i, e] of events.entries()) {
          // A call the model asked for shows before it runs (`not_scheduled`); only one whose runTool activity was scheduled ran.
          if (
            i < from ||
            e.kind !== 'tool_call' ||
            e.tool !== 'refund' ||
            e.answeredBy !== 'tool' ||
            !e.execution ||
            e.execution.status === 'not_scheduled'
          )
            continue;
          if (e.approval && (askedAt.get(e.approval) ?? Infinity) < from) continue;
          const approval = e.approval ? decided.get(e.approval) : undefined;
          if (!approval || approval.outcome !== 'approved' || approval.approver !== 'alice')
            broken(
              h,
              'policy-honoured',
              `${id}: refund ran after the policy update without alice's approval (${clip(approval ?? 'no approval')})`,
            );
        }
      }
    },
  },
];
