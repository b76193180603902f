/**
 * Request-info on what waits: an approver asks a question instead of deciding (`ask`), the
 * requester answers it (`answer`), and asks and answers the chain must refuse (by someone not an
 * approver, empty, oversized, an answer with no open question, a second question while one is
 * open). After each the approval still waits, in a chain still running, with its questions as
 * sent: an asked approval never proceeds without its answer or a decision.
 */
import fc from 'fast-check';
import { LIMITS } from '../../../src';
import { askHandoffQuestionUpdate, type PendingApproval } from '../../../src/workflow';
import { toBatonError } from '../../../src/client';
import { broken, clip, errorText, operation, type Harness } from '../harness';
import { stillWaiting, waiting, waitingFor, type Waiting } from '../waiting';

/** The approval `w` names as its chain reports it now, or `undefined` when it no longer waits. */
async function current(h: Harness, w: Waiting): Promise<PendingApproval | undefined> {
  const pending = await h.baton
    .getRun(w.root.id)
    .pendingApprovals()
    .catch(() => []);
  return pending.find((p) => p.handoffId === w.p.handoffId);
}

const open = (p: PendingApproval | undefined) =>
  p?.questions?.at(-1)?.answer === undefined && (p?.questions?.length ?? 0) > 0;
/** Who may ask about `p`: alice when the policy names her or no one. */
const mayAsk = (p: PendingApproval) => p.approvers === undefined || p.approvers.includes('alice');

/** After an ask or answer: the approval still waits with exactly the questions expected, never decided by it. */
async function questionsAre(h: Harness, w: Waiting, count: number, answered: boolean, what: string): Promise<void> {
  await stillWaiting(h, w, what);
  const p = await current(h, w);
  if (!p) return;
  const qs = p.questions ?? [];
  if (qs.length !== count || (count > 0 && (qs.at(-1)!.answer !== undefined) !== answered)) {
    broken(
      h,
      'asked-waits-for-answer',
      `${what} on ${w.p.handoffId} in ${w.root.id}: ${qs.length} question(s), the last ${qs.at(-1)?.answer !== undefined ? 'answered' : 'open'}; expected ${count}, ${answered ? 'answered' : 'open'}`,
    );
  }
}

const BAD = ['not_approver', 'empty', 'oversized', 'answer_without_question', 'second_question'] as const;
type Bad = (typeof BAD)[number];

async function sendBad(h: Harness, w: Waiting, p: PendingApproval, k: Bad): Promise<void> {
  const id = w.p.handoffId;
  switch (k) {
    case 'not_approver':
      return h.baton.ask(w.root.id, { approvalId: id, approver: 'mallory', question: 'why?' }).then(() => undefined);
    case 'empty':
      return h.baton.ask(w.root.id, { approvalId: id, approver: 'alice', question: ' ' }).then(() => undefined);
    case 'oversized':
      await h.system.client.workflow.getHandle(p.workflowId ?? w.root.id).executeUpdate(askHandoffQuestionUpdate, {
        args: [{ handoffId: id, approver: 'alice', question: 'q'.repeat(LIMITS.questionChars + 1) }],
      });
      return;
    case 'answer_without_question':
      return h.baton
        .answer(w.root.id, { approvalId: id, answerer: 'requester', answer: 'nobody asked' })
        .then(() => undefined);
    case 'second_question':
      return h.baton
        .ask(w.root.id, { approvalId: id, approver: 'alice', question: 'and another thing?' })
        .then(() => undefined);
  }
}

/** Whether the refusal `k` applies to `p` as it waits. */
function badFor(k: Bad, p: PendingApproval): boolean {
  if (k === 'not_approver') return p.approvers !== undefined && !p.approvers.includes('mallory');
  if (k === 'answer_without_question') return !open(p);
  if (k === 'second_question') return open(p) && mayAsk(p);
  return mayAsk(p);
}

export const questionOperations = [
  operation({
    name: 'ask',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat(), n: fc.nat(999) }),
    applies: (m) =>
      waiting(m).some((w) => mayAsk(w.p) && !open(w.p) && (w.p.questions?.length ?? 0) < LIMITS.questionsPerApproval),
    async run(h, p) {
      const w = waitingFor(
        h.model,
        p.approval,
        (x) => mayAsk(x.p) && !open(x.p) && (x.p.questions?.length ?? 0) < LIMITS.questionsPerApproval,
      )!;
      const before = (await current(h, w))?.questions?.length ?? 0;
      try {
        const q = await h.baton.ask(w.root.id, {
          approvalId: w.p.handoffId,
          approver: 'alice',
          question: `Why ${p.n}?`,
        });
        if (q.question !== `Why ${p.n}?` || q.answer !== undefined)
          broken(h, 'asked-waits-for-answer', `asking about ${w.p.handoffId} answered ${JSON.stringify(q)}`);
      } catch (err) {
        // Lost a race: the approval was decided (a timeout), or its chain moved on.
        if (toBatonError(err) instanceof Error && (toBatonError(err) as Error).name === 'QuestionRefusedError') return;
        broken(h, 'question-answered', `asking about ${w.p.handoffId} in ${w.root.id} failed: ${errorText(err)}`);
        return;
      }
      await questionsAre(h, w, before + 1, false, 'a question');
    },
  }),
  operation({
    name: 'answer',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat(), n: fc.nat(999) }),
    applies: (m) => waiting(m).some((w) => open(w.p)),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => open(x.p))!;
      const before = (await current(h, w))?.questions?.length ?? 0;
      try {
        const q = await h.baton.answer(w.root.id, {
          approvalId: w.p.handoffId,
          answerer: 'requester',
          answer: `Because ${p.n}.`,
        });
        if (q.answer !== `Because ${p.n}.`)
          broken(h, 'asked-waits-for-answer', `answering about ${w.p.handoffId} answered ${JSON.stringify(q)}`);
      } catch (err) {
        if ((err as Error).name === 'QuestionRefusedError') return;
        broken(h, 'question-answered', `answering about ${w.p.handoffId} in ${w.root.id} failed: ${errorText(err)}`);
        return;
      }
      await questionsAre(h, w, before, true, 'an answer');
    },
  }),
  operation({
    name: 'refused_question',
    group: 'approvals',
    weight: 2,
    params: fc.record({ approval: fc.nat(), kind: fc.constantFrom(...BAD) }),
    applies: (m, p) => waiting(m).some((w) => badFor(p.kind, w.p)),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => badFor(p.kind, x.p))!;
      const now = await current(h, w);
      if (!now) return;
      const before = now.questions ?? [];
      const outcome = await sendBad(h, w, now, p.kind).then(
        () => 'taken',
        (err: unknown) => errorText(err),
      );
      if (outcome === 'taken')
        broken(h, 'refusals-change-nothing', `a ${p.kind} question about ${w.p.handoffId} in ${w.root.id} was taken`);
      await questionsAre(
        h,
        w,
        before.length,
        before.length > 0 && before.at(-1)!.answer !== undefined,
        `a ${p.kind} question (${clip(outcome, 120)})`,
      );
    },
  }),
];
