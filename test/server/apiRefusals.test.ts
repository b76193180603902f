/**
 * The REST API's refusals on a real Temporal server and a real worker: each error class (bad
 * decisions and input, unknown ids), auth and roles, rate limits, Temporal out of reach.
 */
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { serveBaton } from '../../src/server';
import { useTemporalServer } from '../helpers/temporal';
import { caller, pendingOf, STATIC_TOKENS, TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();
const START = { agent: 'triage', input: 'I want a refund for order 42.' };

/** No stack frame, file path or token in an answer. */
function expectClean(text: string) {
  expect(text).not.toMatch(/\bat .+\(.*:\d+:\d+\)|\.ts:\d+|node_modules/);
  for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
}

describe('the HTTP API refusing', () => {
  it("refuses a handoff approval's decision that carries tool-call arguments or a callHash, naming the fields", async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      expect(pending.tool).toBeUndefined();
      const path = `/v1/runs/${workflowId}/approvals/${pending.handoffId}`;
      const withArgs = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'approve', arguments: { orderId: '7' }, callHash: 'abc' },
      });
      expect(withArgs.status).toBe(400);
      expect(withArgs.body.errors.map((e: { path: string }) => e.path)).toEqual(['arguments', 'callHash']);
      const notObject = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'approve', arguments: [1] },
      });
      expect(notObject.status).toBe(400);
      expect(notObject.body.errors[0].path).toBe('arguments');
      // A rejection carries one note: a reason and a comment together are refused, not one of them dropped.
      const twoNotes = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'reject', reason: 'too large', comment: 'call the customer' },
      });
      expect(twoNotes.status).toBe(400);
      expect(twoNotes.body.errors).toEqual([
        {
          path: 'comment',
          message: expect.stringMatching(/^a rejection with a "reason" takes no "comment": send the reason alone/),
        },
      ]);
      expect((await baton.getRun(workflowId).pendingApprovals()).map((p) => p.handoffId)).toEqual([pending.handoffId]);
      expect((await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve' } })).status).toBe(200);
      await baton.getRun(workflowId).result();
    });
  });

  it('refuses malformed input with the field errors, unknown ids with 404, and never shows a stack trace', async () => {
    await withService(server.env, refundTeam(), async ({ call }) => {
      const missing = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage' } });
      expect(missing.status).toBe(400);
      expect(missing.headers.get('content-type')).toBe('application/problem+json');
      expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(['input']);

      const badOptions = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: { ...START, options: { maxHandoffs: -1, maxTurns: 'many' } },
      });
      expect(badOptions.status).toBe(400);
      expect(badOptions.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'options.maxHandoffs',
        'options.maxTurns',
      ]);

      const unknownAgent = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, agent: 'sales' } });
      expect(unknownAgent.status).toBe(400);
      expect(unknownAgent.body.errors).toEqual([{ path: 'agent', message: '"agent" must be one of triage, refunds' }]);

      const notJson = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: '{"agent": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      const extra = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, resume: {} } });
      expect(extra.status).toBe(400);
      const badDecision = await call('POST', '/v1/runs/x/approvals/y', {
        token: TOKENS.alice,
        body: { decision: 'maybe' },
      });
      expect(badDecision.status).toBe(400);
      expect(badDecision.body.errors[0].path).toBe('decision');

      for (const path of ['/v1/runs/no-such-chain', '/v1/runs/no-such-chain/audit', '/v1/runs/no-such-chain/events']) {
        const answer = await call('GET', path, { token: TOKENS.viewer });
        expect(answer.status, path).toBe(404);
        expectClean(answer.text);
      }
      const noApproval = await call('POST', '/v1/runs/no-such-chain/approvals/h1', {
        token: TOKENS.alice,
        body: { decision: 'approve' },
      });
      expect(noApproval.status).toBe(404);
      expect((await call('GET', '/v1/nothing-here', { token: TOKENS.viewer })).status).toBe(404);
      for (const answer of [missing, badOptions, unknownAgent, notJson, noApproval]) expectClean(answer.text);
    });
  });

  it('needs a token, checks roles, and records an approval only for an identity the policy allows', async () => {
    await withService(server.env, refundTeam(), async ({ call, logged }) => {
      const none = await call('POST', '/v1/runs', { body: START });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect((await call('GET', '/v1/approvals', { token: 'not-a-token' })).status).toBe(401);
      expect((await call('POST', '/v1/runs', { token: TOKENS.viewer, body: START })).status).toBe(403);
      expect((await call('GET', '/v1/me', { token: TOKENS.alice })).body).toEqual({
        name: 'alice',
        roles: ['approver'],
      });

      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      const path = `/v1/runs/${workflowId}/approvals/${pending.handoffId}`;
      const byStarter = await call('POST', path, { token: TOKENS.ops, body: { decision: 'approve' } });
      expect(byStarter.status).toBe(403);
      const byBob = await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } });
      expect(byBob.status).toBe(403);
      expect(byBob.body.detail).toContain('approvers: alice');
      expect((await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer })).body.status).toBe(
        'awaiting_approval',
      );

      const rejected = await call('POST', path, {
        token: TOKENS.alice,
        body: { decision: 'reject', comment: 'not eligible' },
      });
      expect(rejected.body).toMatchObject({ outcome: 'rejected', approver: 'alice', reason: 'not eligible' });
      const again = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve' } });
      expect([404, 409]).toContain(again.status);

      const history = JSON.stringify(await server.env.client.workflow.getHandle(workflowId).fetchHistory());
      for (const token of Object.values(TOKENS)) expect(history).not.toContain(token);
      for (const line of logged) for (const token of Object.values(TOKENS)) expect(line).not.toContain(token);
    });
  });

  it('limits starts per identity', async () => {
    await withService(
      server.env,
      refundTeam(),
      async ({ call }) => {
        // Each a start of its own: the same body again would be the first start's retry.
        const start = (n: number) => ({ ...START, input: `${START.input} (${n})` });
        expect((await call('POST', '/v1/runs', { token: TOKENS.ops, body: start(1) })).status).toBe(201);
        expect((await call('POST', '/v1/runs', { token: TOKENS.ops, body: start(2) })).status).toBe(201);
        const limited = await call('POST', '/v1/runs', { token: TOKENS.ops, body: start(3) });
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await call('POST', '/v1/runs', { token: TOKENS.admin, body: START })).status).toBe(201);
      },
      { service: { rateLimit: { startsPerMinute: 2 } } },
    );
  });

  it('answers 503 with a clear message while Temporal cannot be reached', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second' });
    const baton = new Baton({ client: new Client({ connection }) });
    const service = await serveBaton({
      baton,
      auth: { tokens: STATIC_TOKENS },
      port: 0,
      host: '127.0.0.1',
      metrics: false,
      temporalTimeoutMs: 1_500,
      log: () => undefined,
    });
    try {
      const call = caller(service.url);
      for (const [method, path, body] of [
        ['GET', '/v1/runs/some-chain', undefined],
        ['GET', '/v1/approvals', undefined],
        ['POST', '/v1/runs', START],
      ] as const) {
        const answer = await call(method, path, { token: TOKENS.admin, ...(body ? { body } : {}) });
        expect(answer.status, `${method} ${path}`).toBe(503);
        expect(answer.body.detail).toMatch(/Temporal/);
        expect(answer.headers.get('retry-after')).toBe('5');
        expectClean(answer.text);
      }
      expect((await call('GET', '/healthz')).status).toBe(503);
    } finally {
      await service.close();
      await connection.close().catch(() => undefined);
    }
  });
});
