/** Tool calls put to approval, over HTTP and through the Baton client, on a real Temporal server and worker. */
import { describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../../src/audit/chain';
import { ApprovalRefusedError } from '../../src/common/errors';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService, type Caller } from './service';
import { toolApprovalTeam } from './team';

const server = useTemporalServer();
const START = { agent: 'refunds', input: 'Refund order A1.' };

async function pendingOf(call: Caller, workflowId: string) {
  const answer = await waitFor(
    () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
    (a) => a.status === 200 && a.body.approvals.some((p: { workflowId: string }) => p.workflowId === workflowId),
  );
  return answer.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId);
}

describe('tool calls put to approval', () => {
  it('are listed with their arguments; a stale or invalid edit is refused; an approval with edited arguments runs the call with them', async () => {
    await withService(server.env, toolApprovalTeam(), async ({ call, baton }) => {
      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      expect(pending).toMatchObject({
        from: 'refunds',
        to: 'tool:issueRefund',
        message: 'issueRefund({"orderId":"A1","amount":250})',
        approvers: ['alice'],
        canDecide: true,
        tool: {
          name: 'issueRefund',
          arguments: { orderId: 'A1', amount: 250 },
          argumentsText: '{"orderId":"A1","amount":250}',
          toolCallId: expect.any(String),
          callHash: expect.any(String),
        },
      });
      expect(pending.approvalId).toBe(pending.handoffId);
      const path = `/v1/runs/${workflowId}/approvals/${pending.handoffId}`;
      const forBob = await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } });
      expect(forBob.status).toBe(403);
      expect(forBob.body.detail).toBe('bob may not decide this tool call (approvers: alice)');

      const stale = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'approve', callHash: 'an-earlier-call' },
      });
      expect(stale.status).toBe(409);
      expect(stale.body.detail).toMatch(/stale/);
      const invalid = await call('POST', path, {
        token: TOKENS.alice,
        body: {
          decision: 'approve',
          arguments: { orderId: 'A1', amount: 'all of it' },
          callHash: pending.tool.callHash,
        },
      });
      expect(invalid.status).toBe(409);
      expect(invalid.body.detail).toMatch(/amount/);
      const rejectWithArgs = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'reject', arguments: { amount: 1 } },
      });
      expect(rejectWithArgs.status).toBe(400);
      expect(rejectWithArgs.body.errors).toEqual([
        { path: 'arguments', message: '"arguments" go with "approve" only' },
      ]);

      const approved = await call('POST', path, {
        token: TOKENS.alice,
        body: {
          decision: 'approve',
          arguments: { orderId: 'A1', amount: 200 },
          callHash: pending.tool.callHash,
          comment: 'capped at 200',
        },
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        outcome: 'approved',
        approver: 'alice',
        tool: 'issueRefund',
        editedArguments: '{"orderId":"A1","amount":200}',
        comment: 'capped at 200',
      });

      const result = await baton.getRun(workflowId).result();
      expect(result.output).toBe('Refund issued.');
      const audit = await baton.audit(workflowId);
      const ran = audit.events.filter(
        (e): e is ToolCallEvent & { at: string; runId: string; eventId: number } => e.kind === 'tool_call',
      );
      expect(ran).toHaveLength(1);
      expect(JSON.parse(ran[0]!.arguments)).toEqual({ orderId: 'A1', amount: 200 });
      expect(JSON.parse(ran[0]!.requestedArguments!)).toEqual({ orderId: 'A1', amount: 250 });
      expect(JSON.parse(ran[0]!.result!)).toEqual({ orderId: 'A1', refunded: 200 });
      const timeline = (await call('GET', `/v1/runs/${workflowId}/audit?format=timeline`, { token: TOKENS.viewer }))
        .text;
      expect(timeline).toContain(
        `asked for refunds to call issueRefund({"orderId":"A1","amount":250}) (${pending.handoffId}), approvers alice`,
      );
      expect(timeline).toContain(
        'approved by "alice" (claimed) with edited arguments {"orderId":"A1","amount":200} via update: "capped at 200"',
      );
    });
  });

  it('Baton.approve binds edited arguments to the waiting call, filling its callHash; edits the parameters refuse and a stale callHash are refused', async () => {
    await withService(server.env, toolApprovalTeam(), async ({ baton }) => {
      const run = await baton.start('refunds', START.input);
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const badEdit = await baton
        .approve(run.workflowId, undefined, { approver: 'alice', arguments: { orderId: 'A1', amount: 'lots' } })
        .catch((e: unknown) => e);
      expect(badEdit).toBeInstanceOf(ApprovalRefusedError);
      expect((badEdit as ApprovalRefusedError).reason).toBe(
        'the edited arguments do not match the parameters of issueRefund: $.amount must be number, got string "lots"',
      );
      const stale = await baton
        .approve(run.workflowId, waiting!.handoffId, { approver: 'alice', callHash: 'an-earlier-call' })
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(ApprovalRefusedError);
      expect((stale as ApprovalRefusedError).reason).toBe(
        `stale decision: it is for call an-earlier-call, but ${waiting!.handoffId} waits for issueRefund({"orderId":"A1","amount":250}) (callHash ${waiting!.tool!.callHash})`,
      );
      const record = await baton.approve(run.workflowId, undefined, {
        approver: 'alice',
        arguments: { orderId: 'A1', amount: 120 },
      });
      expect(record).toMatchObject({
        outcome: 'approved',
        tool: 'issueRefund',
        editedArguments: '{"orderId":"A1","amount":120}',
      });
      await run.result();
      const update = (await baton.audit(run.workflowId)).events.find((e) => e.kind === 'update');
      expect(update).toMatchObject({
        input: {
          handoffId: waiting!.handoffId,
          arguments: { orderId: 'A1', amount: 120 },
          callHash: waiting!.tool!.callHash,
        },
      });
    });
  });

  it('a rejection is the call’s answer to the model, and the call does not run', async () => {
    await withService(server.env, toolApprovalTeam(), async ({ call, baton }) => {
      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      const rejected = await call('POST', `/v1/runs/${workflowId}/approvals/${pending.handoffId}`, {
        token: TOKENS.alice,
        body: { decision: 'reject', comment: 'not refundable', callHash: pending.tool.callHash },
      });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({
        outcome: 'rejected',
        approver: 'alice',
        reason: 'not refundable',
        tool: 'issueRefund',
      });
      await baton.getRun(workflowId).result();
      const audit = await baton.audit(workflowId);
      expect(audit.events.some((e) => e.kind === 'tool_call' && e.execution?.status === 'completed')).toBe(false);
    });
  });
});
