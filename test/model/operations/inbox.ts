/**
 * The inbox and batch decisions: `batch_decide` approves or rejects every waiting call alike to one
 * (one `similarKey`, at most five) in one batch, and checks each outcome is its own decision, bound to
 * its own approval, taken at most once; `inbox_lists` checks the inbox (a visibility query over the
 * approval search attributes) lists exactly what waits for alice, as `baton.pending()` reads it.
 */
import fc from 'fast-check';
import { similarKey } from '../../../src/client/inbox';
import { broken, errorText, operation, type Harness } from '../harness';
import { ALICE } from '../team';
import { taken, waiting, waitingFor, type Waiting } from '../waiting';

/** Where an approval waits, as the inbox and a batch name it. */
const keyOf = (w: Waiting) => `${w.p.workflowId ?? w.root.id}/${w.p.handoffId}`;

async function batchDecide(h: Harness, p: { approval: number; decision: 'approve' | 'reject' }): Promise<void> {
  const first = waitingFor(h.model, p.approval)!;
  const group = waiting(h.model)
    .filter((w) => similarKey(w.p) === similarKey(first.p) && (!w.p.approvers || w.p.approvers.includes('alice')))
    .slice(0, 5);
  if (group.length === 0) return;
  const signed = group.some((w) => w.p.requireSignature === true);
  const approvals = group.map((w) => ({ workflowId: w.p.workflowId ?? w.root.id, approvalId: w.p.handoffId }));
  let outcomes;
  try {
    outcomes = await h.baton.decideBatch({
      approvals,
      decision: p.decision,
      approver: 'alice',
      ...(p.decision === 'approve' ? { comment: 'batch' } : { reason: 'batch' }),
      ...(signed ? { signer: ALICE.signer } : {}),
    });
  } catch (err) {
    // A batch refused whole: what waits changed between the model's look and the batch's (a call moved on); nothing was decided.
    if ((err as Error).name !== 'UserError')
      broken(h, 'batch-decided-once', `a batch of ${approvals.length} failed: ${errorText(err)}`);
    return;
  }
  if (outcomes.length !== group.length)
    broken(h, 'batch-decided-once', `a batch of ${group.length} answered ${outcomes.length} outcomes`);
  const decided = new Set<string>();
  for (const [i, o] of outcomes.entries()) {
    const w = group[i]!;
    if (o.workflowId !== approvals[i]!.workflowId || o.approvalId !== approvals[i]!.approvalId)
      broken(h, 'batch-decided-once', `outcome ${i} names ${o.workflowId}/${o.approvalId}, not ${keyOf(w)}`);
    if (!o.ok) {
      // Lost a race (the chain ended, or moved on): refused, never applied.
      if (o.error !== 'ApprovalRefusedError')
        broken(h, 'batch-decided-once', `${keyOf(w)} in a batch failed: ${o.error}: ${o.reason}`);
      continue;
    }
    if (o.record.handoffId !== w.p.handoffId)
      broken(h, 'batch-decided-once', `the decision for ${keyOf(w)} was recorded for ${o.record.handoffId}`);
    if (decided.has(keyOf(w))) broken(h, 'batch-decided-once', `${keyOf(w)} was decided twice in one batch`);
    decided.add(keyOf(w));
    // A rejected entry at a gated agent ends its chain with GatedEntryError, as a single rejection does.
    if (p.decision === 'reject' && w.p.from === '(start)') w.root.provoked.add('GatedEntryError');
    taken(w, o.record, signed);
  }
}

/** The inbox as alice reads it, until it agrees with `baton.pending()` (visibility settles) or 10 s pass. */
async function inboxLists(h: Harness): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = '';
  for (;;) {
    const truth = (await h.baton.pending())
      .filter((p) => !p.approvers || p.approvers.includes('alice'))
      .map((p) => `${p.workflowId}/${p.approvalId}`)
      .sort();
    const listed: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await h.baton.inbox({ for: 'alice', limit: 500, ...(pageToken ? { pageToken } : {}) });
      listed.push(...page.approvals.map((a) => `${a.workflowId}/${a.approvalId}`));
      pageToken = page.nextPageToken;
    } while (pageToken);
    listed.sort();
    if (JSON.stringify(listed) === JSON.stringify(truth)) return;
    last = `the inbox lists [${listed.join(', ')}] but [${truth.join(', ')}] waits for alice`;
    if (Date.now() > deadline) return broken(h, 'inbox-lists-waiting', last);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const inboxOperations = [
  operation({
    name: 'batch_decide',
    group: 'approvals',
    weight: 3,
    params: fc.record({
      approval: fc.nat(),
      decision: fc.constantFrom<'approve' | 'reject'>('approve', 'approve', 'reject'),
    }),
    applies: (m) => waiting(m).some((w) => !w.p.approvers || w.p.approvers.includes('alice')),
    run: (h, p) => batchDecide(h, p),
  }),
  operation({
    name: 'inbox_lists',
    group: 'approvals',
    weight: 2,
    params: fc.record({}),
    applies: (m) => m.roots.some((r) => r.status === 'open'),
    run: (h) => inboxLists(h),
  }),
];
