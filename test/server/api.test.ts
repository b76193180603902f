/**
 * The REST API on a real Temporal server and a real worker: happy paths, idempotent starts,
 * specialists, replays, OpenAPI and health (its refusals: apiRefusals.test.ts).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { API_PATHS, specialistTeam } from './api.fixtures';
import { pendingOf, TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();
const START = { agent: 'triage', input: 'I want a refund for order 42.' };

describe('the HTTP API', () => {
  it('starts a chain, lists its approval, records the decision under the caller, and shows the finished chain', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const started = await call('POST', '/v1/runs', { token: TOKENS.ops, body: START });
      expect(started.status).toBe(201);
      const { workflowId } = started.body;
      const pending = await pendingOf(call, workflowId);
      // The team version the chain runs on shows beside its approval and on the run.
      const team = expect.stringMatching(/^team@[0-9a-f]{12}$/);
      expect(pending).toMatchObject({
        from: 'triage',
        to: 'refunds',
        approvers: ['alice'],
        canDecide: true,
        chain: [],
        team,
      });
      const forBob = await call('GET', '/v1/approvals', { token: TOKENS.bob });
      expect(forBob.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId).canDecide).toBe(
        false,
      );

      const waiting = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(waiting.body).toMatchObject({
        workflowId,
        status: 'awaiting_approval',
        currentAgent: 'triage',
        chain: [],
        team: pending.team,
      });
      expect(waiting.body.pendingApprovals).toHaveLength(1);

      const decided = await call('POST', `/v1/runs/${workflowId}/approvals/${pending.handoffId}`, {
        token: TOKENS.alice,
        body: { decision: 'approve', comment: 'broken on arrival' },
      });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({
        outcome: 'approved',
        approver: 'alice',
        comment: 'broken on arrival',
        via: 'update',
      });

      const result = await baton.getRun(workflowId).result();
      expect(result.handoffChain[0]!.approval).toMatchObject({ approver: 'alice' });
      const done = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(done.body).toMatchObject({
        status: 'completed',
        output: 'Refunded order 42.',
        finalAgent: 'refunds',
        currentAgent: 'refunds',
      });
      expect(done.body.chain).toMatchObject([{ from: 'triage', to: 'refunds', approval: { approver: 'alice' } }]);
      expect(done.body.usage).toEqual(result.usage);

      const audit = await call('GET', `/v1/runs/${workflowId}/audit`, { token: TOKENS.viewer });
      expect(audit.body).toMatchObject({ schema: 'baton.audit/v1', workflowId, status: 'completed' });
      const timeline = await call('GET', `/v1/runs/${workflowId}/audit?format=timeline`, { token: TOKENS.viewer });
      expect(timeline.text).toContain('approved by "alice" (claimed) via update');
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
      const racing = await Promise.all(
        Array.from({ length: 5 }, () => call('POST', '/v1/runs', { token: TOKENS.ops, body: START, headers: key })),
      );
      expect(racing.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
      const first = racing.find((a) => a.status === 201)!;
      expect(new Set(racing.map((a) => `${a.body.workflowId} ${a.body.runId}`))).toEqual(
        new Set([`${first.body.workflowId} ${first.body.runId}`]),
      );
      const retried = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { ...START }, headers: key });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ workflowId: first.body.workflowId, runId: first.body.runId, created: false });

      const otherBody = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: { ...START, input: 'Something else' },
        headers: key,
      });
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
      for await (const wf of baton.client.workflow.list({ query: `WorkflowId = "${first.body.workflowId}"` }))
        runs.push(wf.runId);
      expect(runs).toEqual([first.body.runId]);
    });
  });

  it("passes Temporal's id reuse and conflict policies through Baton.start", async () => {
    await withService(server.env, refundTeam(), async ({ baton }) => {
      const workflowId = `policies-${Date.now()}`;
      const first = await baton.start('triage', START.input, { workflowId });
      const firstRunId = (first.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
      const existing = await baton.start('triage', START.input, {
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      expect((existing.handle as { firstExecutionRunId?: string }).firstExecutionRunId).toBe(firstRunId);
      await expect(baton.start('triage', START.input, { workflowId })).rejects.toBeInstanceOf(
        WorkflowExecutionAlreadyStartedError,
      );

      await first.handle.terminate('closed');
      await expect(
        baton.start('triage', START.input, { workflowId, workflowIdReusePolicy: 'REJECT_DUPLICATE' }),
      ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      const again = await baton.start('triage', START.input, { workflowId, workflowIdReusePolicy: 'ALLOW_DUPLICATE' });
      expect((again.handle as { firstExecutionRunId?: string }).firstExecutionRunId).not.toBe(firstRunId);
      await again.handle.terminate('done');
    });
  });

  it('decides an approval waiting in a specialist through the top chain, and reads the specialist by its id', async () => {
    const team = specialistTeam();
    await withService(server.env, team, async ({ call, baton }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'top', input: 'go' } })
      ).body;
      const listed = await waitFor(
        () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
        (a) => a.body.approvals.some((p: { rootWorkflowId?: string }) => p.rootWorkflowId === workflowId),
      );
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
      // The top chain reads what waits in its specialist itself (an activity after the specialist's report): decided through the top once it knows it.
      await waitFor(
        () => baton.getRun(workflowId).pendingApprovals(),
        (p) => p.some((a) => a.handoffId === waiting.handoffId),
      );
      expect((await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } })).status).toBe(403);
      const decided = await call('POST', path, { token: TOKENS.alice, body: { decision: 'approve' } });
      expect(decided.body).toMatchObject({ outcome: 'approved', approver: 'alice' });
      expect((await baton.getRun(workflowId).result()).output).toBe('summarized');
      const specialist = await call('GET', `/v1/runs/${encodeURIComponent(waiting.workflowId)}`, {
        token: TOKENS.viewer,
      });
      expect(specialist.body).toMatchObject({
        workflowId: waiting.workflowId,
        status: 'completed',
        output: 'vault opened',
      });
    });
  });

  it('replays a failed chain with changed options', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const started = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: { ...START, options: { maxHandoffs: 0 } },
      });
      const { workflowId } = started.body;
      await expect(baton.getRun(workflowId).result()).rejects.toMatchObject({ name: 'MaxHandoffsExceededError' });
      const failed = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
      expect(failed.body).toMatchObject({ status: 'failed', error: { type: 'MaxHandoffsExceededError' } });

      expect((await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.viewer, body: {} })).status).toBe(
        403,
      );
      const badOverrides = await call('POST', `/v1/runs/${workflowId}/replay`, {
        token: TOKENS.ops,
        body: { overrides: { options: { maxHandoffs: 'lots' } } },
      });
      expect(badOverrides.status).toBe(400);
      // The replayed chain hands off to refunds again, which waits for its approval as before.
      const replayed = await call('POST', `/v1/runs/${workflowId}/replay`, {
        token: TOKENS.ops,
        body: { overrides: { options: { maxHandoffs: 3 } } },
      });
      expect(replayed.status).toBe(202);
      expect(replayed.body).toMatchObject({ workflowId, mechanism: 'resume' });
      await waitFor(
        () => baton.getRun(workflowId).pendingApprovals(),
        (p) => p.length === 1,
      );
      await baton.approve(workflowId, undefined, { approver: 'alice' });
      expect((await baton.getRun(workflowId).result()).output).toBe('Refunded order 42.');
      const second = await call('POST', `/v1/runs/${workflowId}/replay`, { token: TOKENS.ops, body: {} });
      expect(second.status).toBe(409);
    });
  });

  it('describes itself in OpenAPI and reports health', async () => {
    await withService(server.env, refundTeam(), async ({ call }) => {
      const doc = await call('GET', '/openapi.json');
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths).sort()).toEqual([...API_PATHS].sort());
      expect(doc.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.body.components.schemas.StartRun.required).toEqual(['agent', 'input']);
      expect(Object.keys(doc.body.components.schemas.Decision.properties)).toEqual([
        'decision',
        'comment',
        'reason',
        'arguments',
        'callHash',
        'signature',
        'onBehalfOf',
        'delegation',
      ]);
      expect(doc.body.components.schemas.PendingApproval.properties.tool).toEqual({
        $ref: '#/components/schemas/ToolCallUnderApproval',
      });
      expect((await call('GET', '/healthz')).body).toEqual({ status: 'ok', temporal: 'reachable' });
    });
  });
});
