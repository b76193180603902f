/**
 * Typed rejection reasons and request-info on a real dev server with a real worker: a rejection's
 * code and label reach the agent once, as JSON; an unknown code is refused naming the valid ones;
 * an approver's question waits for the requester's answer, across continue-as-new, and the
 * decision carries both.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalRefusedError } from '../../src';
import { answerHandoffQuestionUpdate, askHandoffQuestionUpdate, rejectHandoffSignal } from '../../src/workflow';
import { toBatonError } from '../../src/client';
import type { AuditEvent } from '../../src/audit';
import { QuestionRefusedError } from '../../src/common/approvalQuestions';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { modelInputs, occurrences, REASONS, team } from './approvalQuestions.fixtures';

const server = useTemporalServer();

describe('typed rejection reasons', () => {
  it(
    'give the agent the code and label as JSON, once; the record and the audit keep them',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('refunds', 'Refund order A1.');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        expect(waiting!.rejectionReasons).toEqual(REASONS);
        const record = await baton.reject(run.workflowId, {
          approvalId: waiting!.handoffId,
          approver: 'alice',
          reason: 'over_limit',
        });
        expect(record).toMatchObject({
          outcome: 'rejected',
          reason: 'over_limit',
          reasonLabel: 'Over the refund limit',
        });
        expect((await run.result()).output).toBe('Told the customer: over the refund limit.');

        const calls = await modelInputs(server.env.client, run);
        const last = calls.at(-1)!;
        const tool = last.find((m) => m.role === 'tool');
        const data = JSON.parse(/Rejection: (\{.*\})\. /.exec(String(tool?.content))![1]!);
        expect(data).toEqual({
          outcome: 'rejected',
          approver: 'alice',
          reason: { code: 'over_limit', label: 'Over the refund limit' },
        });
        expect(occurrences(last, '"code":"over_limit"')).toBe(1);
        const decided = (await baton.audit(run.workflowId)).events.find(
          (e): e is Extract<AuditEvent, { kind: 'approval_decided' }> => e.kind === 'approval_decided',
        );
        expect(decided).toMatchObject({
          outcome: 'rejected',
          reason: 'over_limit',
          reasonLabel: 'Over the refund limit',
          approver: 'alice',
        });
      });
    },
  );

  it(
    'refuse an unknown code by update and by signal, naming the valid codes; the approval still waits',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('refunds', 'Refund order A1.');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const id = waiting!.handoffId;
        const refused = await baton
          .reject(run.workflowId, { approvalId: id, approver: 'alice', reason: 'too much' })
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(ApprovalRefusedError);
        expect((refused as ApprovalRefusedError).reason).toBe(
          'unknown rejection reason "too much": give one of the team\'s codes: over_limit (Over the refund limit), duplicate (Already refunded)',
        );
        await run.handle.signal(rejectHandoffSignal, { handoffId: id, approver: 'alice', reason: 'Over_Limit' });
        const audit = await waitFor(
          () => baton.audit(run.workflowId),
          (a) => a.events.some((e) => e.kind === 'decision_refused'),
        );
        expect(audit.events.find((e) => e.kind === 'decision_refused')).toMatchObject({
          handoffId: id,
          approver: 'alice',
          via: 'signal',
          reason: expect.stringContaining('unknown rejection reason "Over_Limit"'),
        });
        expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([id]);
        await baton.approve(run.workflowId, { approvalId: id, approver: 'alice' });
        expect((await run.result()).output).toBe('Refunded 250.');
      });
    },
  );
});

describe('request-info', () => {
  it(
    'asks, waits for the answer across continue-as-new, then is approved with the answer attached; every step on the record, bad asks refused',
    { timeout: 120_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('refunds', 'Refund order A1.', { continueAsNewAfterEvents: 20 });
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const id = waiting!.handoffId;
        const firstRun = (await run.handle.describe()).runId;
        const refusal = (p: Promise<unknown>) =>
          p.then(
            () => undefined,
            (e: unknown) => toBatonError(e),
          );

        // Refused before anything is written: not an approver, empty, nothing to answer, no such approval.
        const [mallory, empty, early, unknown] = await Promise.all([
          refusal(baton.ask(run.workflowId, { approvalId: id, approver: 'mallory', question: 'why?' })),
          refusal(
            run.handle.executeUpdate(askHandoffQuestionUpdate, {
              args: [{ handoffId: id, approver: 'alice', question: '  ' }],
            }),
          ),
          refusal(baton.answer(run.workflowId, { approvalId: id, answerer: 'bob', answer: 'because' })),
          refusal(
            run.handle.executeUpdate(askHandoffQuestionUpdate, {
              args: [{ handoffId: 'nope', approver: 'alice', question: 'why?' }],
            }),
          ),
        ]);
        expect((mallory as QuestionRefusedError).reason).toBe(
          `mallory may not ask about approval ${id}: only its approvers may (approvers: alice)`,
        );
        expect(empty).toBeInstanceOf(QuestionRefusedError);
        expect((empty as QuestionRefusedError).reason).toContain('"question" must be a non-empty string');
        expect((early as QuestionRefusedError).reason).toContain(`approval ${id} has no open question to answer`);
        expect((unknown as QuestionRefusedError).reason).toBe(`no approval nope is waiting (waiting: ${id})`);
        const huge = await refusal(
          run.handle.executeUpdate(askHandoffQuestionUpdate, {
            args: [{ handoffId: id, approver: 'alice', question: 'x'.repeat(2001) }],
          }),
        );
        expect(huge).toMatchObject({ name: 'InputTooLargeError', field: 'question', limit: 2000 });

        const asked = await baton.ask(run.workflowId, {
          approvalId: id,
          approver: 'alice',
          question: 'Why 250 and not 200?',
        });
        expect(asked).toMatchObject({ question: 'Why 250 and not 200?', askedBy: 'alice' });
        const again = await refusal(baton.ask(run.workflowId, { approvalId: id, approver: 'alice', question: 'And?' }));
        expect((again as QuestionRefusedError).reason).toContain(
          'already waits for the answer to alice\'s question "Why 250 and not 200?"',
        );

        // Refused decisions by someone else grow the history until the chain continues as new, the question open.
        for (let i = 0; i < 100 && (await run.handle.describe()).runId === firstRun; i++) {
          await run.handle.signal(rejectHandoffSignal, { handoffId: id, approver: 'mallory' });
        }
        expect((await run.handle.describe()).runId).not.toBe(firstRun);
        const carried = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        expect(carried[0]).toMatchObject({
          handoffId: id,
          questions: [{ question: 'Why 250 and not 200?', askedBy: 'alice' }],
        });
        expect(carried[0]!.questions![0]!.answer).toBeUndefined();

        const answered = await baton.answer(run.workflowId, {
          approvalId: id,
          answerer: 'customer-desk',
          answer: 'Shipping was 50.',
        });
        expect(answered).toMatchObject({
          question: 'Why 250 and not 200?',
          answer: 'Shipping was 50.',
          answeredBy: 'customer-desk',
        });
        const record = await baton.approve(run.workflowId, { approvalId: id, approver: 'alice' });
        expect(record).toMatchObject({
          outcome: 'approved',
          questions: [
            {
              question: 'Why 250 and not 200?',
              askedBy: 'alice',
              answer: 'Shipping was 50.',
              answeredBy: 'customer-desk',
            },
          ],
        });
        expect((await run.result()).output).toBe('Refunded 250.');

        const events = (await baton.audit(run.workflowId)).events;
        const steps = events
          .filter((e) =>
            ['approval_requested', 'approval_asked', 'approval_answered', 'approval_decided'].includes(e.kind),
          )
          .map((e) => e.kind);
        expect(steps).toEqual(['approval_requested', 'approval_asked', 'approval_answered', 'approval_decided']);
        const asks = events.filter((e) => e.kind === 'approval_asked');
        expect(asks[0]).toMatchObject({ handoffId: id, question: 'Why 250 and not 200?', askedBy: 'alice' });
        expect(
          new Set(events.filter((e) => ['approval_asked', 'approval_answered'].includes(e.kind)).map((e) => e.runId))
            .size,
        ).toBe(2);
        // The validator refused the bad asks before they were written: the caller got the typed error, history stays clean.
        expect(events.filter((e) => e.kind === 'question_refused')).toEqual([]);
      });
    },
  );

  it(
    'refuses an answer sent straight to the workflow with fields it does not take, naming the valid ones',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('refunds', 'Refund order A1.');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const answer = await run.handle
          .executeUpdate(answerHandoffQuestionUpdate, {
            args: [{ handoffId: waiting!.handoffId, answerer: 'bob', answer: 'hi', extra: 1 } as never],
          })
          .catch((e: unknown) => toBatonError(e));
        expect((answer as QuestionRefusedError).reason).toContain(
          'unknown field(s) "extra" (valid: handoffId, answerer, answer)',
        );
        await baton.approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' });
        await run.result();
      });
    },
  );
});
