/**
 * The inbox and batch decisions over HTTP, on a real Temporal server and worker: chains write what
 * waits as search attributes; `GET /v1/inbox` lists what waits for the caller, soonest due first,
 * filtered and paged; `POST /v1/approvals/batch` decides similar calls, each its own decision.
 */
import { Registry } from 'prom-client';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, Team } from '../../src';
import { BatonApprovalDue, BatonApprovalTools, BatonApprovers, BatonPendingApprovals } from '../../src/common/messages';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService, type Caller } from './service';
import { issueRefund } from './team';

const server = useTemporalServer();

const closeAccount = defineTool({
  name: 'closeAccount',
  description: 'Close an account',
  parameters: z.object({ account: z.string() }),
  needsApproval: { approvers: ['bob'], timeout: '2 hours' },
  execute: ({ account }) => ({ closed: account }),
});

/** refunds calls issueRefund (alice decides, no deadline); closer calls closeAccount (bob decides, due in two hours). */
function inboxTeam(): Team {
  return new Team([
    scriptedAgent(
      'refunds',
      [{ toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] }, { text: 'Refund issued.' }],
      { tools: [issueRefund] },
    ),
    scriptedAgent(
      'closer',
      [{ toolCalls: [{ name: 'closeAccount', arguments: { account: 'acme' } }] }, { text: 'Closed.' }],
      { tools: [closeAccount] },
    ),
  ]);
}

async function inbox(call: Caller, token: string, query = '') {
  const answer = await call('GET', `/v1/inbox${query}`, { token });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as {
    approvals: {
      workflowId: string;
      approvalId: string;
      requestedAt: string;
      dueAt?: string;
      similarKey: string;
      canDecide: boolean;
      tool?: { callHash: string };
    }[];
    total: number;
    nextPageToken?: string;
  };
}

describe('the inbox', () => {
  it(
    'lists what waits for the caller from search attributes, soonest due first, filtered and paged; a batch decides each call on its own',
    { timeout: 120_000 },
    async () => {
      const registry = new Registry();
      await withService(
        server.env,
        inboxTeam(),
        async ({ call, baton }) => {
          const start = (agent: string, input: string) =>
            call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent, input } }).then(
              (a) => a.body.workflowId as string,
            );
          const refunds = [
            await start('refunds', 'Refund order A1 for Ada.'),
            await start('refunds', 'Refund order A1 for Bo.'),
            await start('refunds', 'Refund order A1 for Cy.'),
          ];
          const closing = await start('closer', 'Close acme.');
          await waitFor(
            () => inbox(call, TOKENS.admin, '?for=all'),
            (p) => p.total === 4,
          );

          const attributes = (await baton.client.workflow.getHandle(closing).describe()).typedSearchAttributes;
          expect(attributes.get(BatonApprovers)).toEqual(['bob']);
          expect(attributes.get(BatonApprovalTools)).toEqual(['closeAccount']);
          expect(attributes.get(BatonPendingApprovals)).toBe(1);
          expect(attributes.get(BatonApprovalDue)?.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);

          const all = await inbox(call, TOKENS.admin, '?for=all');
          // Due first: the call with a deadline leads; the rest oldest first.
          expect(all.approvals[0]!.workflowId).toBe(closing);
          const oldestFirst = all.approvals.slice(1).map((a) => a.requestedAt);
          expect(oldestFirst).toEqual([...oldestFirst].sort());
          refunds.sort(
            (x, y) =>
              all.approvals.findIndex((a) => a.workflowId === x) - all.approvals.findIndex((a) => a.workflowId === y),
          );
          expect((await inbox(call, TOKENS.bob)).approvals.map((a) => a.workflowId)).toEqual([closing]);
          const alice = await inbox(call, TOKENS.alice);
          expect(alice.approvals.map((a) => a.workflowId)).toEqual(refunds);
          expect(new Set(alice.approvals.map((a) => a.similarKey))).toEqual(
            new Set(['tool:issueRefund(amount,orderId)']),
          );
          expect((await inbox(call, TOKENS.admin, '?for=all&tool=closeAccount')).total).toBe(1);
          expect((await inbox(call, TOKENS.admin, '?for=all&agent=refunds')).total).toBe(3);
          expect((await inbox(call, TOKENS.admin, '?for=all&overdue=true')).total).toBe(0);
          expect((await inbox(call, TOKENS.admin, '?for=all&minAge=1h')).total).toBe(0);
          expect(
            (await inbox(call, TOKENS.alice, `?q=${encodeURIComponent(refunds[1]!)}`)).approvals.map(
              (a) => a.workflowId,
            ),
          ).toEqual([refunds[1]]);

          const first = await inbox(call, TOKENS.alice, '?limit=2');
          expect(first.approvals.map((a) => a.workflowId)).toEqual(refunds.slice(0, 2));
          const second = await inbox(call, TOKENS.alice, `?limit=2&pageToken=${first.nextPageToken}`);
          expect(second).toMatchObject({ total: 3, approvals: [{ workflowId: refunds[2] }] });
          expect(second.nextPageToken).toBeUndefined();
          expect((await call('GET', '/v1/inbox?limit=0', { token: TOKENS.alice })).status).toBe(400);
          expect((await call('GET', '/v1/inbox?pageToken=nonsense', { token: TOKENS.alice })).body.detail).toMatch(
            /pageToken/,
          );
          expect((await call('GET', '/v1/inbox?minAge=soon', { token: TOKENS.alice })).body.detail).toMatch(/minAge/);

          // Calls that are not alike are refused together; nothing is decided.
          const mixed = [...alice.approvals.slice(0, 1), ...all.approvals.slice(0, 1)].map(
            ({ workflowId, approvalId }) => ({ workflowId, approvalId }),
          );
          const refused = await call('POST', '/v1/approvals/batch', {
            token: TOKENS.admin,
            body: { decision: 'approve', approvals: mixed },
          });
          expect(refused.status).toBe(409);
          expect(refused.body.detail).toMatch(/similar/);
          const repeated = await call('POST', '/v1/approvals/batch', {
            token: TOKENS.alice,
            body: { decision: 'approve', approvals: [mixed[0], mixed[0]] },
          });
          expect(repeated.status).toBe(409);

          // bob may not decide alice's calls: each outcome says so, and they still wait.
          const items = alice.approvals.map(({ workflowId, approvalId, tool }) => ({
            workflowId,
            approvalId,
            callHash: tool!.callHash,
          }));
          const byBob = await call('POST', '/v1/approvals/batch', {
            token: TOKENS.bob,
            body: { decision: 'approve', approvals: items },
          });
          expect(
            byBob.body.outcomes.map((o: { ok: boolean; reason: string }) => [
              o.ok,
              /bob may not decide/.test(o.reason),
            ]),
          ).toEqual([
            [false, true],
            [false, true],
            [false, true],
          ]);

          const batch = await call('POST', '/v1/approvals/batch', {
            token: TOKENS.alice,
            body: { decision: 'approve', comment: 'routine refunds', approvals: items },
          });
          expect(batch.status, batch.text).toBe(200);
          const outcomes = batch.body.outcomes as {
            workflowId: string;
            approvalId: string;
            ok: boolean;
            record: { handoffId: string; approver: string; outcome: string; comment: string };
          }[];
          expect(
            outcomes.map((o) => [
              o.workflowId,
              o.ok,
              o.record.handoffId,
              o.record.approver,
              o.record.outcome,
              o.record.comment,
            ]),
          ).toEqual(items.map((i) => [i.workflowId, true, i.approvalId, 'alice', 'approved', 'routine refunds']));
          for (const [k, id] of refunds.entries()) {
            expect((await baton.getRun(id).result()).output).toBe('Refund issued.');
            // One call ran in each chain, under the decision made for it.
            const ran = (await baton.audit(id)).events.filter((e) => e.kind === 'tool_call');
            expect(ran.map((e) => (e as { approval?: string }).approval)).toEqual([items[k]!.approvalId]);
          }
          // Deciding the same calls again decides nothing: each is no longer waiting.
          const again = await call('POST', '/v1/approvals/batch', {
            token: TOKENS.alice,
            body: { decision: 'approve', approvals: items },
          });
          expect(again.body.outcomes.every((o: { ok: boolean }) => !o.ok)).toBe(true);
          await waitFor(
            () => inbox(call, TOKENS.alice),
            (p) => p.total === 0,
          );
          const cleared = (await baton.client.workflow.getHandle(refunds[0]!).describe()).typedSearchAttributes;
          expect(cleared.get(BatonPendingApprovals)).toBe(0);
          expect(cleared.get(BatonApprovers) ?? []).toEqual([]);

          // /metrics: alice's three decisions timed by approver and tool; what waits (bob's call) by age.
          const metrics = await waitFor(
            () => call('GET', '/metrics').then((a) => a.text),
            (t) => /baton_approval_decision_seconds_count\{[^}]*approver="alice",tool="issueRefund"\} 3/.test(t),
          );
          expect(metrics).toMatch(/baton_approvals_pending_by_age\{age="under 5m"\} 1/);
          expect(metrics).toMatch(/baton_approvals_pending_by_age\{age="overdue"\} 0/);
        },
        { registry },
      );
    },
  );
});
