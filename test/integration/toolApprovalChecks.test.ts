/** Tool calls are checked before anyone is asked to approve them, and the same call is never put to people twice. */
import { describe, expect, it } from 'vitest';
import { formatTimeline } from '../../src/audit';
import { nextApproval, toolApprovalChecksScenario as scenario } from '../histories/auditScenarios';
import { activitiesInHistory } from '../helpers/history';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

describe('approval of tool calls that cannot run, or ran already', () => {
  it('answers invalid arguments without asking, asks once per call, and keeps a decision for the same call', async () => {
    await withWorker(
      server.env,
      scenario.team(),
      async (baton) => {
        const run = await baton.start('a', 'pay bob and eve');
        // The first call put to a person is the first that can run: not the invalid JSON, not the empty arguments.
        const first = await nextApproval(run);
        expect(first.tool).toMatchObject({ name: 'payout', arguments: '{"amount":5,"to":"bob"}' });
        await baton.approve(run.workflowId, first.handoffId, { approver: 'alice' });
        const second = await nextApproval(run, [first.handoffId]);
        expect(second.tool).toMatchObject({ name: 'payout', arguments: '{"amount":900,"to":"eve"}' });
        await baton.reject(run.workflowId, second.handoffId, { approver: 'alice', reason: 'too much' });
        const result = await run.result();
        expect(result.output).toBe('paid bob 5; eve was refused');
        expect(result.controls).toMatchObject({
          tool_approvals_requested: 2,
          tool_calls_approved: 1,
          tool_calls_rejected: 1,
        });

        const audit = await baton.audit(run.workflowId);
        expect(audit.events.filter((e) => e.kind === 'approval_requested')).toHaveLength(2);
        const calls = audit.events.flatMap((e) =>
          e.kind === 'tool_call' ? [[e.arguments, e.execution?.status, e.result]] : [],
        );
        expect(calls).toEqual([
          [
            '{"amount": 5, "to": ',
            'not_scheduled',
            expect.stringMatching(
              /^Not run: the arguments of payout are not valid JSON .*so nobody was asked to approve the call/,
            ),
          ],
          [
            '{}',
            'not_scheduled',
            'Not run: the arguments of payout do not fit its parameters ($.amount is required; $.to is required), so nobody was asked to approve the call. Call payout again with arguments that match its parameters.',
          ],
          ['{"amount":5,"to":"bob"}', 'completed', 'paid 5 to bob'],
          [
            '{"to":"bob","amount":5}',
            'not_scheduled',
            expect.stringMatching(
              /^Not run again: the same call to payout was approved by alice earlier in this chain and ran then/,
            ),
          ],
          [
            '{"amount":900,"to":"eve"}',
            'not_scheduled',
            expect.stringMatching(/^Not run: alice rejected this call to payout: too much/),
          ],
          [
            '{"amount":900,"to":"eve"}',
            'not_scheduled',
            expect.stringMatching(
              /^Not run: the same call to payout was put to people in this turn and alice rejected it: too much/,
            ),
          ],
          [
            '{"amount":900,"to":"eve"}',
            'not_scheduled',
            expect.stringMatching(
              /^Not run: the same call to payout was put to people earlier in this chain and alice rejected it/,
            ),
          ],
        ]);
        expect((await activitiesInHistory(run.handle)).filter((a) => a.name === 'runTool')).toHaveLength(1);
        expect(formatTimeline(audit)).toMatch(
          /a +tool payout\(\{\}\) → Not run: the arguments of payout do not fit its parameters/,
        );
      },
      { providers: scenario.providers!() },
    );
  });
});
