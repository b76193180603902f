/**
 * People deciding what waits: approve (signed or not, by update or signal, with edited arguments
 * for a tool call), reject, decisions the chain must refuse (a wrong id, an approver the policy
 * does not name, unsigned or badly signed where a signature is required, a stale call hash,
 * oversized fields, edited arguments the tool does not take), and floods of hostile input
 * (test/helpers/hostileCases.ts) at a waiting approval. A refused decision must leave the approval
 * waiting and the chain running.
 */
import fc from 'fast-check';
import { LIMITS, type DecisionOptions } from '../../../src';
import {
  approveHandoffSignal,
  childApprovalsSignal,
  decideHandoffUpdate,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  overrideRunSignal,
  rejectHandoffSignal,
  type PendingApproval,
} from '../../../src/workflow';
import { hostileScenario, REAL_ID, type ChainCase } from '../../helpers/hostileCases';
import { broken, clip, errorText, operation, type Harness } from '../harness';
import { subjectOf } from '../model';
import { ALICE, BOB, MALLORY } from '../team';
import { stillWaiting, taken, waiting, waitingFor, type Waiting } from '../waiting';

/** Approve `w` as alice (or `as`'s approver): signed when asked (or required), by update, or by signal when unsigned. */
export async function approve(
  h: Harness,
  w: Waiting,
  o: { signed?: boolean; edit?: boolean; via?: 'update' | 'signal'; as?: typeof BOB } = {},
): Promise<void> {
  const signed = o.signed === true || w.p.requireSignature === true;
  const edited =
    o.edit && w.p.tool
      ? {
          ...(JSON.parse(w.p.tool.arguments) as Record<string, unknown>),
          amount: 1 + Number((JSON.parse(w.p.tool.arguments) as { amount?: number }).amount ?? 0),
        }
      : undefined;
  if (o.via === 'signal' && !signed && !edited) {
    await h.system.client.workflow
      .getHandle(w.p.workflowId ?? w.root.id)
      .signal(approveHandoffSignal, { handoffId: w.p.handoffId, approver: 'alice', comment: 'by signal' });
    pendingSignal(w, 'approved');
    return;
  }
  // A staged approval's open slot decides (the harness drives it to its end one vote at a time).
  const approver = o.as ? 'bob' : w.p.stages && !signed ? (w.p.approvers?.[0] ?? 'alice') : 'alice';
  const options: DecisionOptions = {
    approvalId: w.p.handoffId,
    approver,
    comment: 'looks right',
    ...(signed ? { signer: (o.as ?? ALICE).signer } : {}),
    ...(edited ? { arguments: edited } : {}),
  };
  try {
    taken(w, await h.baton.approve(w.root.id, options), signed);
  } catch (err) {
    // A signed quorum alice voted in takes bob's signed vote next.
    if (signed && w.p.stages && !o.as && /each approver decides once/.test(errorText(err)))
      return approve(h, w, { ...o, edit: false, signed: true, as: BOB });
    // A decision that lost a race (the chain ended, a kill moved it) is refused; anything else is not expected.
    if ((err as Error).name !== 'ApprovalRefusedError')
      broken(h, 'decision-answered', `approving ${w.p.handoffId} in ${w.root.id} failed: ${errorText(err)}`);
  }
}

/** A decision sent by signal: taken when the approval is seen gone (see observe). */
function pendingSignal(w: Waiting, outcome: 'approved' | 'rejected'): void {
  w.root.signalled ??= [];
  w.root.signalled.push({
    approvalId: w.p.handoffId,
    workflowId: w.p.workflowId ?? w.root.id,
    outcome,
    subject: subjectOf(w.p),
    signed: false,
    ...(w.p.tool ? { toolCallId: w.p.tool.toolCallId } : {}),
  });
}

const REFUSALS = [
  'wrong_id',
  'not_approver',
  'unsigned',
  'bad_signature',
  'stale_hash',
  'oversized',
  'oversized_signal',
  'bad_edit',
  'edit_handoff',
] as const;
type Refusal = (typeof REFUSALS)[number];

/** Whether a refusal of kind `k` is one `w` must refuse. */
function refusable(k: Refusal, w: Waiting): boolean {
  switch (k) {
    case 'not_approver':
      return w.p.approvers !== undefined && !w.p.approvers.includes('mallory');
    case 'unsigned':
    case 'bad_signature':
      return w.p.requireSignature === true;
    case 'stale_hash':
    case 'bad_edit':
      return w.p.tool !== undefined;
    case 'edit_handoff':
      return w.p.tool === undefined;
    default:
      return true;
  }
}

async function refuse(h: Harness, w: Waiting, k: Refusal): Promise<void> {
  const id = w.p.handoffId;
  const base: DecisionOptions = {
    approvalId: id,
    approver: 'alice',
    ...(w.p.requireSignature ? { signer: ALICE.signer } : {}),
  };
  const note = 'x'.repeat(LIMITS.noteChars + 1);
  const chain = h.system.client.workflow.getHandle(w.p.workflowId ?? w.root.id);
  switch (k) {
    case 'wrong_id':
      return h.baton.approve(w.root.id, { ...base, approvalId: `${id}-not` }).then(() => undefined);
    case 'not_approver':
      return h.baton.approve(w.root.id, { ...base, approver: 'mallory' }).then(() => undefined);
    case 'unsigned':
      return h.baton.approve(w.root.id, { approvalId: id, approver: 'alice' }).then(() => undefined);
    case 'bad_signature':
      return h.baton
        .approve(w.root.id, { approvalId: id, approver: 'alice', signer: MALLORY.signer })
        .then(() => undefined);
    case 'stale_hash':
      return h.baton
        .approve(w.root.id, {
          ...base,
          arguments: JSON.parse(w.p.tool!.arguments) as Record<string, unknown>,
          callHash: 'ffffffff',
        })
        .then(() => undefined);
    case 'bad_edit':
      return h.baton.approve(w.root.id, { ...base, arguments: { ref: 5, amount: 'lots' } }).then(() => undefined);
    case 'edit_handoff':
      return h.baton.approve(w.root.id, { ...base, arguments: { to: 'support' } }).then(() => undefined);
    case 'oversized':
      await chain.executeUpdate(decideHandoffUpdate, {
        args: [{ handoffId: id, approver: 'alice', decision: 'approve', comment: note }],
      });
      return;
    case 'oversized_signal':
      // A signal has no validator: the workflow must refuse it itself, and not apply it.
      await chain.signal(approveHandoffSignal, { handoffId: id, approver: 'alice', comment: 'y'.repeat(300_000) });
      throw new Error('(signals are not answered)');
  }
}

/** Send one hostile case to the chain `w` waits in. */
async function sendHostile(h: Harness, w: Waiting, c: ChainCase): Promise<void> {
  const handle = h.system.client.workflow.getHandle(w.p.workflowId ?? w.root.id);
  const payload = aimed('payload' in c ? c.payload : undefined, w.p);
  if (c.kind === 'signal')
    await handle.signal(c.name === 'approveHandoff' ? approveHandoffSignal : rejectHandoffSignal, payload as never);
  else if (c.kind === 'override') await handle.signal(overrideRunSignal, payload as never);
  else if (c.kind === 'report') await handle.signal(childApprovalsSignal, payload as never);
  else if (c.kind === 'forward')
    await handle.signal(
      (c.name === 'forwardDecision' ? forwardDecisionSignal : forwardedOutcomeSignal) as typeof forwardDecisionSignal,
      payload as never,
    );
  else if (c.kind === 'update') await handle.executeUpdate(decideHandoffUpdate, { args: [payload as never] });
}

/** A hostile payload aimed at the waiting approval, its approver never one who may decide it. */
function aimed(v: unknown, p: PendingApproval): unknown {
  if (v === REAL_ID) return p.handoffId;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const o = { ...(v as Record<string, unknown>) };
  if (o.handoffId === REAL_ID) o.handoffId = p.handoffId;
  if (typeof o.approver === 'string' && (p.approvers === undefined || p.approvers.includes(o.approver)))
    o.approver = 'mallory';
  return o;
}

/**
 * A storm of small decisions the chain refuses (ids that wait nowhere), each recorded as refused:
 * the approval still waits, and a chain that continues as new every few events does so while it
 * waits instead of growing one history without end.
 */
async function storm(h: Harness, w: Waiting, n: number): Promise<void> {
  const handle = h.system.client.workflow.getHandle(w.p.workflowId ?? w.root.id);
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, k) =>
        handle.signal(approveHandoffSignal, { handoffId: `nope-${i + k}`, approver: 'mallory' }).catch(() => undefined),
      ),
    );
  }
  await stillWaiting(h, w, `a storm of ${n} refused decisions`);
  const every = w.root.options.continueAsNewAfterEvents ?? 0;
  if (every === 0) return;
  const d = await handle.describe();
  if (d.status.name === 'RUNNING' && d.historyLength > every + 200)
    broken(
      h,
      'continues-as-new',
      `${handle.workflowId} waits for ${w.p.handoffId} with ${d.historyLength} events in its run after ${n} refused decisions, though it continues as new after ${every}`,
    );
}

export const approvalOperations = [
  operation({
    name: 'approve',
    group: 'approvals',
    weight: 8,
    params: fc.record({
      approval: fc.nat(),
      signed: fc.boolean(),
      edit: fc.boolean(),
      via: fc.constantFrom<'update' | 'signal'>('update', 'update', 'signal'),
    }),
    applies: (m) => waiting(m).length > 0,
    run: (h, p) => approve(h, waitingFor(h.model, p.approval)!, p),
  }),
  operation({
    name: 'reject',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat(), via: fc.constantFrom<'update' | 'signal'>('update', 'signal') }),
    applies: (m) => waiting(m).length > 0,
    async run(h, p) {
      const w = waitingFor(h.model, p.approval)!;
      const signed = w.p.requireSignature === true;
      // A chain whose entry at a gated agent is rejected does not start: it fails with GatedEntryError, as its starter is told.
      if (w.p.from === '(start)') w.root.provoked.add('GatedEntryError');
      if (p.via === 'signal' && !signed) {
        await h.system.client.workflow
          .getHandle(w.p.workflowId ?? w.root.id)
          .signal(rejectHandoffSignal, { handoffId: w.p.handoffId, approver: 'alice', reason: 'not now' });
        return pendingSignal(w, 'rejected');
      }
      try {
        taken(
          w,
          await h.baton.reject(w.root.id, {
            approvalId: w.p.handoffId,
            approver: 'alice',
            reason: 'not now',
            ...(signed ? { signer: ALICE.signer } : {}),
          }),
          signed,
        );
      } catch (err) {
        if ((err as Error).name !== 'ApprovalRefusedError')
          broken(h, 'decision-answered', `rejecting ${w.p.handoffId} in ${w.root.id} failed: ${errorText(err)}`);
      }
    },
  }),
  operation({
    name: 'refused_decision',
    group: 'approvals',
    weight: 4,
    params: fc.record({ approval: fc.nat(), kind: fc.constantFrom(...REFUSALS) }),
    applies: (m, p) => waiting(m).some((w) => refusable(p.kind, w)),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => refusable(p.kind, x))!;
      const outcome = await refuse(h, w, p.kind).then(
        () => 'taken',
        (err: unknown) => errorText(err),
      );
      if (outcome === 'taken')
        broken(h, 'refusals-change-nothing', `a ${p.kind} decision of ${w.p.handoffId} in ${w.root.id} was taken`);
      await stillWaiting(h, w, `a ${p.kind} decision (${clip(outcome, 120)})`);
    },
  }),
  operation({
    name: 'flood',
    group: 'approvals',
    weight: 2,
    params: fc.record({ approval: fc.nat(), seed: fc.nat(), n: fc.integer({ min: 10, max: 60 }), storm: fc.boolean() }),
    applies: (m) => waiting(m).some((w) => w.p.approvers !== undefined),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => x.p.approvers !== undefined)!;
      if (p.storm) return storm(h, w, p.n * 5);
      const cases = fc
        .sample(hostileScenario, { seed: p.seed, numRuns: Math.ceil(p.n / 3) })
        .flatMap((s) => s.chain.filter((c) => c.kind !== 'http'));
      // Many at once, as a misbehaving client would send them.
      await Promise.all(cases.slice(0, p.n).map((c) => sendHostile(h, w, c).catch(() => undefined)));
      await stillWaiting(h, w, `a flood of ${Math.min(p.n, cases.length)} hostile inputs`);
    },
  }),
];
