/** The REST API on a real Temporal server and a real worker: happy paths, each error class, auth, idempotent starts. */
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, scripted, Team } from '../../src';
import { Baton } from '../../src/client/baton';
import { serveBaton } from '../../src/server';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { caller, STATIC_TOKENS, TOKENS, withService, type Caller } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();
const START = { agent: 'triage', input: 'I want a refund for order 42.' };

/** The approval a chain waits for, once the inbox shows it. */
async function pendingOf(call: Caller, workflowId: string) {
  const answer = await waitFor(
    () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
    (a) => a.status === 200 && a.body.approvals.some((p: { workflowId: string }) => p.workflowId === workflowId),
  );
  return answer.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId);
}

/** No stack frame, file path or token in an answer. */
function expectClean(text: string) {
  expect(text).not.toMatch(/\bat .+\(.*:\d+:\d+\)|\.ts:\d+|node_modules/);
  for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
}

describe('the HTTP API', () => {
  it('starts a chain, lists its approval, records the decision under the caller, and shows the finished chain', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const started = await call('POST', '/v1/runs', { token: TOKENS.ops, body: START });
      expect(started.status).toBe(201);
      const { workflowId } = started.body;
      const pending = await pendingOf(call, workflowId);
      // The team version the chain runs on shows beside its approval and on the run.
      const team = expect.stringMatching(/^team@[0-9a-f]{12}$/);
      expect(pending).toMatchObject({ from: 'triage', to: 'refunds', approvers: ['alice'], canDecide: true, chain: [], team });
      const forBob = await call('GET', '/v1/approvals', { token: TOKENS.bob });
      expect(forBob.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId).canDecide).toBe(false);

      const waiting = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(waiting.body).toMatchObject({ workflowId, status: 'awaiting_approval', currentAgent: 'triage', chain: [], team: pending.team });
      expect(waiting.body.pendingApprovals).toHaveLength(1);

      const decided = await call('POST', `/v1/runs/${workflowId}/approvals/${pending.handoffId}`, { token: TOKENS.alice, body: { decision: 'approve', comment: 'broken on arrival' } });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ outcome: 'approved', approver: 'alice', comment: 'broken on arrival', via: 'update' });

      const result = await baton.getRun(workflowId).result();
      expect(result.handoffChain[0]!.approval).toMatchObject({ approver: 'alice' });
      const done = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(done.body).toMatchObject({ status: 'completed', output: 'Refunded order 42.', finalAgent: 'refunds', currentAgent: 'refunds' });
      expect(done.body.chain).toMatchObject([{ from: 'triage', to: 'refunds', approval: { approver: 'alice' } }]);
      expect(done.body.usage).toEqual(result.usage);

      const audit = await call('GET', `/v1/runs/${workflowId}/audit`, { token: TOKENS.viewer });
      expect(audit.body).toMatchObject({ schema: 'baton.audit/v1', workflowId, status: 'completed' });
      const timeline = await call('GET', `/v1/runs/${workflowId}/audit?format=timeline`, { token: TOKENS.viewer });
      expect(timeline.text).toContain('approved by alice via update');
      const mermaid = await call('GET', `/v1/runs/${workflowId}/audit?format=mermaid`, { token: TOKENS.viewer });
      expect(mermaid.text).toContain('triage -->|"1 · approved by alice"| refunds');
      const svg = await call('GET', `/v1/runs/${workflowId}/audit?format=svg`, { token: TOKENS.viewer });
      expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(svg.text).toMatch(/^<svg[^>]*>.*<text[^>]*>#1 · alice<\/text>.*<\/svg>$/s);
    });
  });

  it('answers a retried start with the same Idempotency-Key with the same run', async () => {
    await withService(server.env, refundTeam(), async ({ call }) => {
      const key = { 'idempotency-key': `order-42-${Date.now()}` };
      const racing = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/v1/runs', { token: TOKENS.ops, body: START, headers: key })));
      expect(racing.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
      const first = racing.find((a) => a.status === 201)!;
      expect(new Set(racing.map((a) => `${a.body.workflowId} ${a.body.runId}`))).toEqual(new Set([`${first.body.workflowId} ${first.body.runId}`]));
      const retried = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START }, headers: key });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ workflowId: first.body.workflowId, runId: first.body.runId, created: false });

      const otherBody = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, input: 'Something else' }, headers: key });
      expect(otherBody.status).toBe(409);
      const otherCaller = await call('POST', '/v1/runs', { token: TOKENS.admin, body: START, headers: key });
      expect(otherCaller.status).toBe(201);
      expect(otherCaller.body.workflowId).not.toBe(first.body.workflowId);
    });
  });

  it('never starts a second chain for a key, even after the first one closed', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const key = { 'idempotency-key': `closed-${Date.now()}` };
      const first = await call('POST', '/v1/runs', { token: TOKENS.ops, body: START, headers: key });
      expect(first.status).toBe(201);
      await baton.client.workflow.getHandle(first.body.workflowId).terminate('closed before the retry');
      const retried = await call('POST', '/v1/runs', { token: TOKENS.ops, body: START, headers: key });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ ...first.body, created: false });
      const runs = [];
      for await (const wf of baton.client.workflow.list({ query: `WorkflowId = "${first.body.workflowId}"` })) runs.push(wf.runId);
      expect(runs).toEqual([first.body.runId]);
    });
  });

  it("passes Temporal's id reuse and conflict policies through Baton.start", async () => {
    await withService(server.env, refundTeam(), async ({ baton }) => {
      const workflowId = `policies-${Date.now()}`;
      const first = await baton.start('triage', START.input, { workflowId });
      const firstRunId = (first.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
      const existing = await baton.start('triage', START.input, { workflowId, workflowIdConflictPolicy: 'USE_EXISTING' });
      expect((existing.handle as { firstExecutionRunId?: string }).firstExecutionRunId).toBe(firstRunId);
      await expect(baton.start('triage', START.input, { workflowId })).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);

      await first.handle.terminate('closed');
      await expect(baton.start('triage', START.input, { workflowId, workflowIdReusePolicy: 'REJECT_DUPLICATE' })).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      const again = await baton.start('triage', START.input, { workflowId, workflowIdReusePolicy: 'ALLOW_DUPLICATE' });
      expect((again.handle as { firstExecutionRunId?: string }).firstExecutionRunId).not.toBe(firstRunId);
      await again.handle.terminate('done');
    });
  });

  it("refuses a handoff approval's decision that carries tool-call arguments or a callHash, naming the fields", async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      expect(pending.tool).toBeUndefined();
      const path = `/v1/runs/${workflowId}/approvals/${pending.handoffId}`;
      const withArgs = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve', arguments: { orderId: '7' }, callHash: 'abc' } });
      expect(withArgs.status).toBe(400);
      expect(withArgs.body.errors.map((e: { path: string }) => e.path)).toEqual(['arguments', 'callHash']);
      const notObject = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve', arguments: [1] } });
      expect(notObject.status).toBe(400);
      expect(notObject.body.errors[0].path).toBe('arguments');
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

      const badOptions = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, options: { maxHandoffs: -1, maxTurns: 'many' } } });
      expect(badOptions.status).toBe(400);
      expect(badOptions.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['options.maxHandoffs', 'options.maxTurns']);

      const unknownAgent = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, agent: 'sales' } });
      expect(unknownAgent.status).toBe(400);
      expect(unknownAgent.body.errors).toEqual([{ path: 'agent', message: '"agent" must be one of triage, refunds' }]);

      const notJson = await call('POST', '/v1/runs', { token: TOKENS.ops, body: '{"agent": ', headers: { 'content-type': 'application/json' } });
      expect(notJson.status).toBe(400);
      const extra = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, resume: {} } });
      expect(extra.status).toBe(400);
      const badDecision = await call('POST', '/v1/runs/x/approvals/y', { token: TOKENS.alice, body: { decision: 'maybe' } });
      expect(badDecision.status).toBe(400);
      expect(badDecision.body.errors[0].path).toBe('decision');

      for (const path of ['/v1/runs/no-such-chain', '/v1/runs/no-such-chain/audit', '/v1/runs/no-such-chain/events']) {
        const answer = await call('GET', path, { token: TOKENS.viewer });
        expect(answer.status, path).toBe(404);
        expectClean(answer.text);
      }
      const noApproval = await call('POST', '/v1/runs/no-such-chain/approvals/h1', { token: TOKENS.alice, body: { decision: 'approve' } });
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
      expect((await call('GET', '/v1/me', { token: TOKENS.alice })).body).toEqual({ name: 'alice', roles: ['approver'] });

      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
      const pending = await pendingOf(call, workflowId);
      const path = `/v1/runs/${workflowId}/approvals/${pending.handoffId}`;
      const byStarter = await call('POST', path, { token: TOKENS.ops, body: { decision: 'approve' } });
      expect(byStarter.status).toBe(403);
      const byBob = await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } });
      expect(byBob.status).toBe(403);
      expect(byBob.body.detail).toContain('approvers: alice');
      expect((await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer })).body.status).toBe('awaiting_approval');

      const rejected = await call('POST', path, { token: TOKENS.alice, body: { decision: 'reject', comment: 'not eligible' } });
      expect(rejected.body).toMatchObject({ outcome: 'rejected', approver: 'alice', reason: 'not eligible' });
      const again = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve' } });
      expect([404, 409]).toContain(again.status);

      const history = JSON.stringify(await server.env.client.workflow.getHandle(workflowId).fetchHistory());
      for (const token of Object.values(TOKENS)) expect(history).not.toContain(token);
      for (const line of logged) for (const token of Object.values(TOKENS)) expect(line).not.toContain(token);
    });
  });

  it('decides an approval waiting in a specialist through the top chain, and reads the specialist by its id', async () => {
    const team = new Team([
      defineAgent({
        id: 'top',
        instructions: 'Top.',
        model: scripted({ steps: [{ toolCalls: [{ name: 'delegate', arguments: { to: 'leaf', task: 'open it', reason: 'leaf knows' } }] }], rules: [{ whenIncludes: '', reply: { text: 'summarized' } }] }),
        handoffs: [delegate('leaf')],
      }),
      defineAgent({ id: 'leaf', instructions: 'Leaf.', model: scripted([{ handoff: { to: 'vault', message: 'open the vault' } }]), handoffs: ['vault'] }),
      defineAgent({ id: 'vault', instructions: 'Vault.', model: scripted([{ text: 'vault opened' }]), approval: { approvers: ['alice'] } }),
    ]);
    await withService(server.env, team, async ({ call, baton }) => {
      const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'top', input: 'go' } })).body;
      const listed = await waitFor(() => call('GET', '/v1/approvals', { token: TOKENS.alice }), (a) => a.body.approvals.some((p: { rootWorkflowId?: string }) => p.rootWorkflowId === workflowId));
      const waiting = listed.body.approvals.find((p: { rootWorkflowId?: string }) => p.rootWorkflowId === workflowId);
      expect(waiting).toMatchObject({ from: 'leaf', to: 'vault', canDecide: true });
      expect(waiting.workflowId).toMatch(new RegExp(`^${workflowId}/`));
      // Which chain it is: the specialist's task, and what was first asked of the top chain, by whom.
      expect(waiting.request).toMatchObject({
        agent: 'leaf',
        input: expect.stringMatching(/^Task from top: open it\n/),
        parent: { workflowId, rootWorkflowId: workflowId, depth: 1 },
        original: { agent: 'top', input: 'go', startedBy: 'ops' },
      });
      const path = `/v1/runs/${encodeURIComponent(workflowId)}/approvals/${waiting.handoffId}`;
      expect((await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } })).status).toBe(403);
      const decided = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve' } });
      expect(decided.body).toMatchObject({ outcome: 'approved', approver: 'alice' });
      expect((await baton.getRun(workflowId).result()).output).toBe('summarized');
      const specialist = await call('GET', `/v1/runs/${encodeURIComponent(waiting.workflowId)}`, { token: TOKENS.viewer });
      expect(specialist.body).toMatchObject({ workflowId: waiting.workflowId, status: 'completed', output: 'vault opened' });
    });
  });

  it('limits starts per identity', async () => {
    await withService(
      server.env,
      refundTeam(),
      async ({ call }) => {
        expect((await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).status).toBe(201);
        expect((await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).status).toBe(201);
        const limited = await call('POST', '/v1/runs', { token: TOKENS.ops, body: START });
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await call('POST', '/v1/runs', { token: TOKENS.admin, body: START })).status).toBe(201);
      },
      { service: { rateLimit: { startsPerMinute: 2 } } },
    );
  });

  it('replays a failed chain with changed options', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const started = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START, options: { maxHandoffs: 0 } } });
      const { workflowId } = started.body;
      await expect(baton.getRun(workflowId).result()).rejects.toMatchObject({ name: 'MaxHandoffsExceededError' });
      const failed = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(failed.body).toMatchObject({ status: 'failed', error: { type: 'MaxHandoffsExceededError' } });

      expect((await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.viewer, body: {} })).status).toBe(403);
      const badOverrides = await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.ops, body: { overrides: { options: { maxHandoffs: 'lots' } } } });
      expect(badOverrides.status).toBe(400);
      const replayed = await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.ops, body: { overrides: { options: { maxHandoffs: 3, approvals: [{ to: 'refunds', required: false }] } } } });
      expect(replayed.status).toBe(202);
      expect(replayed.body).toMatchObject({ workflowId, mechanism: 'resume' });
      expect((await baton.getRun(workflowId).result()).output).toBe('Refunded order 42.');
      const second = await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.ops, body: {} });
      expect(second.status).toBe(409);
    });
  });

  it('describes itself in OpenAPI and reports health', async () => {
    await withService(server.env, refundTeam(), async ({ call }) => {
      const doc = await call('GET', '/openapi.json');
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths).sort()).toEqual(
        [
          ...['/v1/approvals', '/v1/approvals/events', '/v1/breakers', '/v1/breakers/reset', '/v1/conversations/{id}', '/v1/conversations/{id}/end', '/v1/conversations/{id}/messages', '/v1/me', '/v1/runs', '/v1/runs/{id}'],
          ...['/v1/runs/{id}/approvals/{approvalId}', '/v1/runs/{id}/audit', '/v1/runs/{id}/events', '/v1/runs/{id}/replay', '/v1/runs/{id}/dataset', '/v1/runs/{id}/steer', '/v1/runs/{id}/stream'],
          ...['/v1/evals/{id}', '/v1/experiments/{id}', '/v1/experiments/{id}/stop', '/v1/stats'],
        ].sort(),
      );
      expect(doc.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.body.components.schemas.StartRun.required).toEqual(['agent', 'input']);
      expect(Object.keys(doc.body.components.schemas.Decision.properties)).toEqual(['decision', 'comment', 'arguments', 'callHash', 'signature']);
      expect(doc.body.components.schemas.PendingApproval.properties.tool).toEqual({ $ref: '#/components/schemas/ToolCallUnderApproval' });
      expect((await call('GET', '/healthz')).body).toEqual({ status: 'ok', temporal: 'reachable' });
    });
  });

  it('answers 503 with a clear message while Temporal cannot be reached', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second' });
    const baton = new Baton({ client: new Client({ connection }) });
    const service = await serveBaton({ baton, auth: { tokens: STATIC_TOKENS }, port: 0, host: '127.0.0.1', metrics: false, temporalTimeoutMs: 1_500, log: () => undefined });
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
