/** Tool calls put to approval on fake effects: approved as asked or with edited arguments, rejected, stale, timed out. */
import { describe, expect, it } from 'vitest';
import type { AgentSpec } from '../../src/common/team';
import { runChain } from '../../workflows/loop';
import { agentSpec, FakeEffects } from '../helpers/fakeEffects';
import { call, controlled } from './controlledRun';

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(check()).toBe(true);
}

describe('tool approvals', () => {
  const refunds = (extra: Partial<AgentSpec> = {}) =>
    agentSpec('refunds', {
      tools: [
        {
          name: 'issueRefund',
          description: 'refund',
          parameters: {
            type: 'object',
            properties: { orderId: { type: 'string' }, amount: { type: 'number', maximum: 500 } },
            required: ['orderId', 'amount'],
            additionalProperties: false,
          },
        },
      ],
      toolApprovals: { issueRefund: { when: [{ arg: 'amount', op: '>', value: 100 }], timeout: '1 hour' } },
      ...extra,
    });
  const refund = (amount: number) => call('issueRefund', { orderId: 'A1', amount });

  it('runs small refunds at once and makes large ones wait; an approval with edited arguments runs those', async () => {
    const ran: unknown[] = [];
    const effects = new FakeEffects(
      { refunds: [refund(50), refund(250), 'done'] },
      { issueRefund: (args) => (ran.push(args), `refunded ${String(args.amount)}`) },
    );
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => run.chain.state.approvals.pending.length === 1);
    const waiting = run.chain.state.approvals.pending[0]!;
    expect(waiting).toMatchObject({
      from: 'refunds',
      to: 'tool:issueRefund',
      message: 'issueRefund({"orderId":"A1","amount":250})',
      tool: { name: 'issueRefund', arguments: '{"orderId":"A1","amount":250}' },
    });
    run.desk.receive(
      { handoffId: waiting.handoffId, approver: 'finance', arguments: { orderId: 'A1', amount: 900 } },
      'approve',
    );
    run.desk.receive(
      {
        handoffId: waiting.handoffId,
        approver: 'finance',
        arguments: { orderId: 'A1', amount: 200 },
        callHash: waiting.tool!.callHash,
      },
      'approve',
    );
    const outcome = await done;
    expect(ran).toEqual([
      { orderId: 'A1', amount: 50 },
      { orderId: 'A1', amount: 200 },
    ]);
    const refusedEdit = effects.memos
      .map((m) => m.batonApprovalEvent as { type: string; reason?: string })
      .find((e) => e?.type === 'decision_refused');
    expect(refusedEdit?.reason).toBe(
      'the edited arguments do not match the parameters of issueRefund: $.amount must be <= 500, got 900',
    );
    expect(effects.modelInputs[2]!.messages.at(-1)!.content).toBe(
      '(finance approved this call with changed arguments: {"orderId":"A1","amount":200})\nrefunded 200',
    );
    expect(outcome).toMatchObject({ result: { controls: { tool_approvals_requested: 1, tool_calls_approved: 1 } } });
    expect(run.chain.state.approvals.decided[0]).toMatchObject({
      tool: 'issueRefund',
      editedArguments: '{"orderId":"A1","amount":200}',
      approver: 'finance',
    });
  });

  it('tells the model a rejection with its reason, and refuses a stale decision for another call', async () => {
    const effects = new FakeEffects(
      { refunds: [refund(300), 'ok, no refund'] },
      { issueRefund: () => 'should not run' },
    );
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => run.chain.state.approvals.pending.length === 1);
    const waiting = run.chain.state.approvals.pending[0]!;
    run.desk.receive({ handoffId: waiting.handoffId, approver: 'finance', callHash: '00000000' }, 'approve');
    run.desk.receive({ handoffId: waiting.handoffId, approver: 'finance', reason: 'over the policy' }, 'reject');
    await done;
    expect(effects.log).not.toContain('runTool refunds issueRefund');
    const refused = effects.memos
      .map((m) => m.batonApprovalEvent as { type: string; reason?: string })
      .find((e) => e?.type === 'decision_refused');
    expect(refused?.reason).toMatch(
      /^stale decision: it is for call 00000000, but .* waits for issueRefund\(\{"orderId":"A1","amount":300\}\)/,
    );
    expect(effects.modelInputs[1]!.messages.at(-1)!.content).toBe(
      'Not run: finance rejected this call to issueRefund: over the policy. Do not make the same call again; tell the user, or find another way.',
    );
  });

  it('answers a timed-out approval by its onTimeout', async () => {
    const effects = new FakeEffects({ refunds: [refund(300), 'nobody answered'] }, { issueRefund: () => 'no' });
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => effects.log.includes('timer 3600000'));
    effects.fireTimer();
    await done;
    expect(effects.modelInputs[1]!.messages.at(-1)!.content).toBe(
      'Not run: nobody approved this call to issueRefund in time (1 hour).',
    );
    expect(run.chain.state.controls!.counters).toMatchObject({ tool_approvals_timed_out: 1 });
  });
});
