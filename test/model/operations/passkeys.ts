/**
 * Decisions signed with passkeys (WebAuthn assertions over the decision's digest): a chain started
 * trusting alice's and bob's passkeys (`approverKeys` with `webauthn`, as the approvals page
 * registers them); alice decides a waiting approval with a valid assertion, which must act once
 * and be recorded as a passkey decision; forged, replayed, wrong-challenge and other-approver
 * assertions must be refused, leaving the approval waiting and the chain running. `passkey_batch`
 * decides alike approvals of several chains in one batch as the approvals page's batch bar does, an
 * assertion per decision over its own digest; one signed with bob's passkey in alice's name (a key
 * not registered for her) must be refused alone while the others act. Invariants, in
 * `../passkeyInvariants.ts`: `passkey-once` (after every step): no assertion decides twice, the
 * counters a chain took from a passkey only go forward, and every passkey decision the workflow
 * took is on the record as one; at the end, `passkey-export-verifies`: the real
 * `baton audit --export` and `--verify` accept every chain a passkey decided.
 */
import fc from 'fast-check';
import type { ApprovalRecord } from '../../../src/workflow';
import { similarKey } from '../../../src/client/inbox';
import { factsOfDecision, type DecisionFacts } from '../../../src/common/signatures/payload';
import { nodePasskey, passkeySign } from '../../helpers/passkeys';
import { broken, clip, errorText, operation, type Harness } from '../harness';
import { pick, ref } from '../model';
import { ALICE, APPROVER_KEYS, AT, BOB, logOf, logs, trustsPasskeys } from '../passkeyLog';
import { START_AGENTS } from '../team';
import { BASE_OPTIONS, newRoot, roomForRoot } from './chain';
import { stillWaiting, taken, waiting, type Waiting } from '../waiting';

/** Approvals alice may decide alone with her passkey: in a passkey root's own chain, not staged. */
function decidable(h: Harness): Waiting[] {
  return waiting(h.model).filter(
    (w) =>
      trustsPasskeys(w.root) &&
      (w.p.workflowId ?? w.root.id) === w.root.id &&
      !w.p.stages &&
      (w.p.approvers === undefined || w.p.approvers.includes('alice')),
  );
}

const factsOf = (w: Waiting, approver = 'alice'): DecisionFacts =>
  factsOfDecision(w.root.id, w.p, { approver, decision: 'approve', comment: 'by passkey' });

const REFUSALS = ['forged', 'replayed', 'wrong_challenge', 'other_approver'] as const;
type Refusal = (typeof REFUSALS)[number];

/** An assertion that must be refused for `w`, of kind `k`. */
function refusedAssertion(w: Waiting, k: Refusal): { approver: string; signature: string }[] {
  const facts = factsOf(w);
  switch (k) {
    case 'forged':
      // Alice's key id, another key's assertion.
      return [
        { approver: 'alice', signature: passkeySign(nodePasskey(ALICE.kid, 'P-256', ALICE.signCount), facts, AT) },
      ];
    case 'replayed': {
      // Every assertion the harness made that acted (another approval's, another chain's), and, where this chain took one, a fresh one whose counter does not go forward.
      const earlier = [...logs.values()]
        .flatMap((l) => [...l.taken.values()])
        .slice(-6)
        .map((signature) => ({ approver: 'alice', signature }));
      const last = logs.get(w.root.id)?.lastCount;
      return [
        ...earlier,
        ...(last !== undefined
          ? [{ approver: 'alice', signature: passkeySign(ALICE, facts, { ...AT, signCount: last }) }]
          : []),
      ];
    }
    case 'wrong_challenge': {
      // The payload names this decision; the authenticator signed a challenge of another approval's.
      const [, , ...assertion] = passkeySign(ALICE, { ...facts, approval: `${facts.approval}-other` }, AT).split('.');
      const [header, payload] = passkeySign(nodePasskey(ALICE.kid), facts, AT).split('.');
      return [{ approver: 'alice', signature: [header, payload, ...assertion].join('.') }];
    }
    case 'other_approver':
      // Bob's passkey, for a decision in alice's name.
      return [{ approver: 'alice', signature: passkeySign(BOB, facts, AT) }];
  }
}

/** Alike approvals of up to four passkey chains (one each: a chain's counters must go forward) decided in one batch, the last signed with bob's passkey when `spoil`. */
async function passkeyBatch(h: Harness, p: { approval: number; spoil: boolean }): Promise<void> {
  const first = pick(decidable(h), p.approval);
  if (!first) return;
  const group = [
    ...new Map(
      decidable(h)
        .filter((w) => similarKey(w.p) === similarKey(first.p))
        .map((w) => [w.root.id, w] as const),
    ).values(),
  ].slice(0, 4);
  const spoiled = p.spoil ? group[group.length - 1] : undefined;
  const signatures = new Map<string, string>();
  const outcomes = await h.baton
    .decideBatch({
      approvals: group.map((w) => ({ workflowId: w.root.id, approvalId: w.p.handoffId })),
      decision: 'approve',
      approver: 'alice',
      comment: 'by passkey',
      // As the page does: each decision its own assertion, over its own digest.
      sign: async (workflowId, waiting) => {
        const w = group.find((g) => g.root.id === workflowId)!;
        const signature = passkeySign(
          w === spoiled ? BOB : ALICE,
          factsOfDecision(workflowId, waiting, { approver: 'alice', decision: 'approve', comment: 'by passkey' }),
          AT,
        );
        signatures.set(workflowId, signature);
        return Promise.resolve(signature);
      },
    })
    .catch((err: unknown) => {
      // Refused whole: what waits changed between the model's look and the batch's; nothing was decided.
      if ((err as Error).name !== 'UserError')
        broken(h, 'passkey-batch', `a passkey batch of ${group.length} failed: ${errorText(err)}`);
      return [];
    });
  for (const [i, o] of outcomes.entries()) {
    const w = group[i]!;
    const signature = signatures.get(w.root.id);
    if (w === spoiled) {
      if (signature) logOf(w.root.id).refused.add(signature);
      if (o.ok)
        broken(
          h,
          'refusals-change-nothing',
          `${w.root.id}: a batch decision signed with bob's passkey in alice's name was taken: ${clip(o.record)}`,
        );
      else if (o.error !== 'ApprovalRefusedError' && !/signs for bob/.test(o.reason))
        broken(
          h,
          'passkey-batch',
          `${w.root.id}: bob's passkey in alice's name was refused as ${o.error}: ${o.reason}, not as the wrong approver`,
        );
      if (!o.ok && /signs for bob/.test(o.reason))
        await stillWaiting(h, w, "a batch decision signed with bob's passkey");
      continue;
    }
    // Lost a race (the chain ended, or moved on): refused, never applied.
    if (!o.ok) {
      if (o.error !== 'ApprovalRefusedError')
        broken(
          h,
          'passkey-batch',
          `${w.root.id}: alice's passkey decision in a batch was refused: ${o.error}: ${o.reason}`,
        );
      continue;
    }
    taken(w, o.record, true);
    const log = logOf(w.root.id);
    log.taken.set(w.p.handoffId, signature!);
    log.lastCount = o.record.identity?.passkey?.signCount ?? log.lastCount;
    if (o.record.identity?.kid !== ALICE.kid || o.record.signature !== signature)
      broken(
        h,
        'passkey-batch',
        `${w.root.id}: alice's passkey decision in a batch is recorded as ${clip(o.record.identity)}, not as the assertion made for it`,
      );
  }
}

export const passkeyOperations = [
  operation({
    name: 'passkey_start',
    group: 'chain',
    opens: true,
    weight: 3,
    params: fc.record({ agent: fc.nat(), requireSignature: fc.boolean() }),
    applies: (m) => roomForRoot(m),
    async run(h, p) {
      const agent = pick(START_AGENTS, p.agent)!;
      const root = newRoot(h.model, 'chain', agent, {
        ...BASE_OPTIONS,
        approverKeys: APPROVER_KEYS,
        ...(p.requireSignature ? { requireSignature: true } : {}),
      });
      await h.baton.start(agent, `request ${ref(h.model, 'q')} for ${agent}`, {
        workflowId: root.id,
        context: root.context,
        ...root.options,
      });
    },
  }),
  operation({
    name: 'passkey_decide',
    group: 'approvals',
    weight: 4,
    params: fc.record({ approval: fc.nat() }),
    applies: (m) => waiting(m).some((w) => trustsPasskeys(w.root)),
    async run(h, p) {
      const w = pick(decidable(h), p.approval);
      if (!w) return;
      const signature = passkeySign(ALICE, factsOf(w), AT);
      let record: ApprovalRecord;
      try {
        record = await h.baton.approve(w.root.id, {
          approvalId: w.p.handoffId,
          approver: 'alice',
          comment: 'by passkey',
          signature,
        });
      } catch (err) {
        return broken(
          h,
          'passkey-decides',
          `alice's passkey decision of ${w.p.handoffId} in ${w.root.id} was refused: ${errorText(err)}`,
        );
      }
      taken(w, record, true);
      const log = logOf(w.root.id);
      log.taken.set(w.p.handoffId, signature);
      log.lastCount = record.identity?.passkey?.signCount ?? log.lastCount;
      if (
        record.identity?.kid !== ALICE.kid ||
        record.identity.passkey?.origin !== AT.origin ||
        record.identity.passkey.signCount !== ALICE.signCount
      ) {
        broken(
          h,
          'passkey-decides',
          `${w.root.id}: alice's passkey decision of ${w.p.handoffId} is recorded as ${clip(record.identity)}, not as her passkey's (counter ${ALICE.signCount}, from ${AT.origin})`,
        );
      }
      // Sent again, the same assertion decides nothing more.
      const again = await h.baton
        .approve(w.root.id, { approvalId: w.p.handoffId, approver: 'alice', comment: 'by passkey', signature })
        .then(
          (r) => r,
          () => undefined,
        );
      if (
        again &&
        (again.decidedAt !== record.decidedAt ||
          again.identity?.passkey?.signCount !== record.identity?.passkey?.signCount)
      )
        broken(
          h,
          'passkey-once',
          `${w.root.id}: alice's assertion for ${w.p.handoffId}, sent again, was taken again: ${clip(again)}`,
        );
    },
  }),
  operation({
    name: 'passkey_batch',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat(), spoil: fc.boolean() }),
    applies: (m) => waiting(m).some((w) => trustsPasskeys(w.root)),
    run: (h, p) => passkeyBatch(h, p),
  }),
  operation({
    name: 'passkey_refused',
    group: 'approvals',
    weight: 4,
    params: fc.record({ approval: fc.nat(), kind: fc.constantFrom(...REFUSALS) }),
    applies: (m) => waiting(m).some((w) => trustsPasskeys(w.root)),
    async run(h, p) {
      const w = pick(decidable(h), p.approval);
      if (!w) return;
      const assertions = refusedAssertion(w, p.kind);
      for (const a of assertions) {
        // An assertion that acted before is held by `passkey-once` to the one approval it decided.
        if (![...logs.values()].some((l) => [...l.taken.values()].includes(a.signature)))
          logOf(w.root.id).refused.add(a.signature);
        const outcome = await h.baton
          .approve(w.root.id, {
            approvalId: w.p.handoffId,
            approver: a.approver,
            comment: 'by passkey',
            signature: a.signature,
          })
          .then(
            (r) => `taken: ${clip(r)}`,
            (err: unknown) => errorText(err),
          );
        if (outcome.startsWith('taken'))
          broken(
            h,
            'refusals-change-nothing',
            `a ${p.kind} passkey assertion for ${w.p.handoffId} in ${w.root.id} was ${outcome}`,
          );
      }
      if (assertions.length > 0) await stillWaiting(h, w, `a ${p.kind} passkey assertion`);
    },
  }),
];
