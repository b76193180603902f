/**
 * Decisions signed with keys an identity provider publishes (../jwks.ts): the provider rotates its
 * key for alice; alice decides a waiting approval with the key her chain's recorded snapshot took
 * from the set, which must act and be recorded with that key; a decision signed with the provider's
 * other key (one the chain did not record) must be refused, leaving the approval waiting. Invariant
 * `jwks-recorded` (after every step): every decision the workflow took with a provider's key was
 * signed by a key its chain's recorded snapshot lists among its key sets' keys.
 */
import fc from 'fast-check';
import type { ApprovalRecord } from '../../../src/workflow';
import type { AuditEvent } from '../../../src/audit';
import { signDecision } from '../../../src/client/signing';
import { teamSnapshot } from '../../../src/client/sensitive';
import { broken, clip, errorText, operation, type Harness, type Invariant } from '../harness';
import { pick } from '../model';
import { IDP_KEYS, rotateIdpKey } from '../jwks';
import { stillWaiting, taken, waiting, type Waiting } from '../waiting';
import { perSystem } from '../systemState';

/** Chains a provider's key decided in, by root id. */
const decidedIn = perSystem(new Set<string>());

/** Approvals alice may decide alone in a root's own chain. */
function decidable(h: Harness): Waiting[] {
  return waiting(h.model).filter(
    (w) =>
      (w.p.workflowId ?? w.root.id) === w.root.id &&
      !w.p.stages &&
      (w.p.approvers === undefined || w.p.approvers.includes('alice')),
  );
}

/** The provider's key ids the chain `id`'s current run recorded (its snapshot's key sets); `undefined` when it cannot be read. */
async function recordedKids(h: Harness, id: string): Promise<string[] | undefined> {
  const runId = await h.system.client.workflow
    .getHandle(id)
    .describe()
    .then(
      (d) => d.runId,
      () => undefined,
    );
  const team = runId ? await teamSnapshot(h.system.client, id, runId).catch(() => undefined) : undefined;
  return team?.keySets?.flatMap((s) => s.keys.map((k) => k.kid));
}

/** Alice's decision on `w`, signed with the provider's key `k`. */
async function decide(h: Harness, w: Waiting, k: (typeof IDP_KEYS)[number]): Promise<ApprovalRecord | string> {
  const decision = { approver: 'alice', decision: 'approve' as const, comment: 'by the identity provider key' };
  const signature = await signDecision(k.signer, { workflowId: w.root.id, waiting: w.p, decision });
  return h.baton
    .approve(w.root.id, { approvalId: w.p.handoffId, approver: 'alice', comment: decision.comment, signature })
    .catch((err: unknown) => errorText(err));
}

export const jwksOperations = [
  operation({
    name: 'jwks_rotate',
    group: 'approvals',
    weight: 1,
    params: fc.constant({}),
    applies: () => true,
    run() {
      rotateIdpKey();
      return Promise.resolve();
    },
  }),
  operation({
    name: 'jwks_decide',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat(), refused: fc.boolean() }),
    applies: (m) => waiting(m).length > 0,
    async run(h, p) {
      const w = pick(decidable(h), p.approval);
      const kids = w && (await recordedKids(h, w.root.id));
      if (!w || !kids) return;
      const key = IDP_KEYS.find((k) => kids.includes(k.kid) !== p.refused);
      if (!key) return;
      const outcome = await decide(h, w, key);
      if (p.refused) {
        if (typeof outcome !== 'string')
          broken(
            h,
            'refusals-change-nothing',
            `${w.root.id}: a decision of ${w.p.handoffId} signed with ${key.kid}, which the chain's snapshot does not list (it lists ${kids.join(', ') || 'none'}), was taken: ${clip(outcome)}`,
          );
        else await stillWaiting(h, w, `a decision signed with the provider's unrecorded key ${key.kid}`);
        return;
      }
      if (typeof outcome === 'string')
        return broken(
          h,
          'jwks-decides',
          `${w.root.id}: alice's decision of ${w.p.handoffId} signed with ${key.kid}, which the chain recorded from the provider, was refused: ${outcome}`,
        );
      taken(w, outcome, true);
      decidedIn.add(w.root.id);
      if (outcome.identity?.kid !== key.kid || outcome.identity.keySource !== 'team')
        broken(
          h,
          'jwks-decides',
          `${w.root.id}: the decision of ${w.p.handoffId} signed with ${key.kid} is recorded as ${clip(outcome.identity)}`,
        );
    },
  }),
];

export const jwksInvariants: Invariant[] = [
  {
    name: 'jwks-recorded',
    when: 'step',
    async check(h: Harness) {
      const idp = new Set<string>(IDP_KEYS.map((k) => k.kid));
      for (const id of decidedIn) {
        if (!h.model.roots.some((r) => r.id === id)) continue;
        const audit = await h.baton.audit(id).catch(() => undefined);
        const kids = await recordedKids(h, id);
        if (!audit || !kids) continue;
        for (const e of audit.events) {
          const kid =
            e.kind === 'approval_decided'
              ? (e as Extract<AuditEvent, { kind: 'approval_decided' }> & ApprovalRecord).identity?.kid
              : undefined;
          if (kid !== undefined && idp.has(kid) && !kids.includes(kid))
            broken(
              h,
              'jwks-recorded',
              `${id}: a decision signed with the provider's key ${kid} acted, but the chain's snapshot lists ${kids.join(', ') || 'none'} from its key sets`,
            );
        }
      }
    },
  },
];
