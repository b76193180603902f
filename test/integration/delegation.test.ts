/** Delegation with a return path, capability routing and fan-out, as child workflows on a real server. */
import { describe, expect, it } from 'vitest';
import { BatonStatus, DelegationFailedError } from '../../src/workflow';
import { formatTimeline, toMermaid } from '../../src/audit';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import {
  ask,
  deepTeam,
  failingSpecialistsTeam,
  fanOutTeam,
  filingTeam,
  nestedApprovalTeam,
  profiled,
  slowSpecialistTeam,
  specialistTeam,
} from './delegation.fixtures';

const server = useTemporalServer();

const childrenOf = async (workflowId: string) => {
  const found: { workflowId: string; status: string; parent?: unknown }[] = [];
  for await (const wf of server.env.client.workflow.list({ query: `WorkflowId STARTS_WITH "${workflowId}/"` }))
    found.push({ workflowId: wf.workflowId, status: wf.status.name, parent: wf.memo?.batonParent });
  return found;
};

describe('delegation', () => {
  it('runs the specialist as a child chain and returns its answer to the caller, who goes on', async () => {
    const { calls, providers } = recordingScripted();
    const team = specialistTeam();
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('triage', 'where is order 42?');
        const result = await run.result();
        expect(result).toMatchObject({
          output: 'Order 42 was delivered yesterday.',
          finalAgent: 'triage',
          handoffChain: [],
        });
        // The chain's usage counts its specialist's: triage's two calls and orders' one.
        expect(result.usage.modelCalls).toBe(3);
        expect(Object.fromEntries(Object.entries(result.usageByAgent!).map(([id, u]) => [id, u.modelCalls]))).toEqual({
          triage: 2,
          orders: 1,
        });
        const back = calls.filter((c) => c.agentId === 'triage')[1]!.messages.at(-1)!;
        expect(back).toMatchObject({ role: 'tool', content: 'Answer from orders: order 42: delivered yesterday' });
        const specialistInput = calls.find((c) => c.agentId === 'orders')!.messages.at(-1)!.content!;
        expect(specialistInput).toContain('Task from triage: look up order 42');
        expect(specialistInput).toContain('Original request: where is order 42?');
        const [child] = await childrenOf(run.workflowId);
        expect(child).toMatchObject({
          status: 'COMPLETED',
          parent: { workflowId: run.workflowId, rootWorkflowId: run.workflowId, depth: 1 },
        });
        const audit = await baton.audit(run.workflowId);
        expect(audit.events.find((e) => e.kind === 'tool_call' && e.tool === 'delegate')).toMatchObject({
          answeredBy: 'workflow',
          result: 'Answer from orders: order 42: delivered yesterday',
        });
        expect(audit.events.find((e) => e.kind === 'delegation')).toMatchObject({
          from: 'triage',
          to: 'orders',
          outcome: 'completed',
          output: 'order 42: delivered yesterday',
        });
        // The specialist runs on the caller's team: its parent link names it.
        const team = {
          id: expect.stringMatching(/^team@[0-9a-f]{12}$/),
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        };
        expect(audit.children).toEqual([
          expect.objectContaining({
            workflowId: child!.workflowId,
            status: 'completed',
            parent: { workflowId: run.workflowId, rootWorkflowId: run.workflowId, depth: 1, team },
          }),
        ]);
        const timeline = formatTimeline(audit);
        // The specialist starts, its chain runs (indented), and its answer comes back, in that order.
        expect(timeline).toMatch(
          /delegate\s+triage starts orders \(chain [^)]+\/orders-1\.1\): "Task from triage: look up order 42"\n {4}│ chain [^\n]+\/orders-1\.1: completed\n(?: {4}│ [^\n]*\n)+\S+\s+delegate\s+orders answered triage: "order 42: delivered yesterday"\n\S+\s+triage\s+tool delegate\(.*\) → "Answer from orders: order 42: delivered yesterday"/,
        );
        expect(toMermaid(audit)).toMatch(/subgraph d1_box/);
      },
      { providers },
    );
  });

  it('returns an error result for a failing and a timed-out specialist, and the caller acts on it', async () => {
    const { calls, providers } = recordingScripted();
    const team = failingSpecialistsTeam();
    const result = await withWorker(server.env, team, (baton) => baton.run('lead', 'go'), { providers });
    expect(result.output).toBe('summarized');
    const answers = calls
      .filter((c) => c.agentId === 'lead')[1]!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(answers[0]).toMatch(/^The task delegated to broken failed: UnexpectedModelCallError/);
    expect(answers[1]).toMatch(/^The task delegated to slow failed: it timed out/);
  });

  it("refuses a delegation past maxDelegationDepth with a tool error the agent acts on, and fails the caller's run on a failed specialist under onFailure: 'fail'", async () => {
    const { calls, providers } = recordingScripted();
    const team = deepTeam();
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const result = await baton.run('lead', 'go', { maxDelegationDepth: 1 });
        expect(result.output).toBe('summarized');
        const midAnswer = calls.filter((c) => c.agentId === 'mid')[1]!.messages.at(-1)!;
        expect(midAnswer).toMatchObject({
          role: 'tool',
          content: 'Error: Agent "mid" would delegate at depth 2, past maxDelegationDepth (1). Do the task yourself.',
        });
        expect(calls.some((c) => c.agentId === 'leaf')).toBe(false);

        const failure = await baton.run('boss', 'go').catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(DelegationFailedError);
        expect(failure).toMatchObject({ agent: 'boss', specialist: 'broken' });
        expect((failure as Error).message).toMatch(
          /^The task agent "boss" delegated to "broken" failed: UnexpectedModelCallError/,
        );
      },
      { providers },
    );
  });

  it('joins a fan-out of three with one failing: best_effort answers each, all marks every answer failed', async () => {
    for (const join of ['best_effort', 'all'] as const) {
      const { calls, providers } = recordingScripted();
      const team = fanOutTeam();
      await withWorker(
        server.env,
        team,
        (baton) => baton.run('lead', 'go', { delegationJoin: join, maxParallelDelegations: 2 }),
        { providers },
      );
      const answers = calls
        .filter((c) => c.agentId === 'lead')[1]!
        .messages.filter((m) => m.role === 'tool')
        .map((m) => m.content);
      const prefix = join === 'all' ? 'The joined delegation failed: 1 of 3 tasks failed. ' : '';
      expect(answers).toEqual([
        `${prefix}Answer from a: a done`,
        expect.stringMatching(new RegExp(`^${prefix}The task delegated to b failed`)),
        `${prefix}Answer from c: c done`,
      ]);
    }
  });

  it('surfaces an approval waiting two levels down at the top, where it is decided once', async () => {
    const team = nestedApprovalTeam();
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('top', 'go');
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      expect(waiting).toMatchObject({
        from: 'leaf',
        to: 'vault',
        approvers: ['alice'],
        workflowId: `${run.workflowId}/middle-1.1/leaf-1.1`,
      });
      expect((await run.status()).status).toBe(BatonStatus.RUNNING);
      const listed = await waitFor(
        () => baton.pending(),
        (all) => all.some((p) => p.handoffId === waiting!.handoffId),
      );
      expect(listed.find((p) => p.handoffId === waiting!.handoffId)).toMatchObject({
        workflowId: waiting!.workflowId,
        rootWorkflowId: run.workflowId,
      });

      await expect(baton.approve(run.workflowId, waiting!.handoffId, { approver: 'mallory' })).rejects.toThrow(
        /mallory may not decide/,
      );
      const decided = await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
      expect(decided).toMatchObject({ outcome: 'approved', approver: 'alice' });
      await expect(baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' })).rejects.toThrow(
        /already decided|no handoff|closing workflow|completed/,
      );
      expect((await run.result()).output).toBe('summarized');
      expect(await run.pendingApprovals()).toEqual([]);
    });
  });

  it('continues a parent that failed after its specialists completed without running them again', async () => {
    const { calls, providers } = recordingScripted();
    let broken = true;
    const team = filingTeam(() => broken);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('lead', 'go');
        await expect(run.result()).rejects.toThrow(/archive is down/);
        broken = false;
        calls.length = 0;
        await baton.replay(run.workflowId);
        expect((await baton.getRun(run.workflowId).result()).output).toBe('report filed');
        expect(calls.map((c) => c.agentId)).toEqual(['lead']);
        expect(await childrenOf(run.workflowId)).toHaveLength(2);
      },
      { providers },
    );
  });

  it('cancels its specialists when it is cancelled', async () => {
    const team = slowSpecialistTeam();
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('lead', 'go');
      await waitFor(
        () => childrenOf(run.workflowId),
        (c) => c.length === 1,
      );
      await run.handle.cancel();
      await expect(run.result()).rejects.toThrow();
      const [child] = await waitFor(
        () => childrenOf(run.workflowId),
        (c) => c[0]?.status === 'CANCELLED',
      );
      expect(child?.status).toBe('CANCELLED');
    });
  });
});

describe('capability routing', () => {
  it('transfers to the specialist whose profile matches', async () => {
    const result = await withWorker(
      server.env,
      profiled('transfer', [ask('handoff_to_specialist', 'logistics', ['tracking'])]),
      (baton) => baton.run('desk', 'where is my parcel?'),
    );
    expect(result).toMatchObject({
      finalAgent: 'shipping',
      output: 'shipping done',
      handoffChain: [{ from: 'desk', to: 'shipping' }],
    });
  });

  it('falls back to the model as router, and tells the agent when no specialist fits', async () => {
    const { calls, providers } = recordingScripted();
    const routed = await withWorker(
      server.env,
      profiled(
        'delegate',
        [ask('delegate_to_specialist', 'money stuff')],
        [{ whenIncludes: 'Kind of specialist asked for: money stuff', reply: { text: '{"agent": "billing"}' } }],
      ),
      (baton) => baton.run('desk', 'refund me'),
      { providers },
    );
    expect(routed.output).toBe('desk answers');
    expect(calls.some((c) => c.purpose === 'routing')).toBe(true);
    expect(
      calls
        .filter((c) => c.agentId === 'desk')
        .at(-1)!
        .messages.at(-1),
    ).toMatchObject({ role: 'tool', content: 'Answer from billing: billing done' });

    const none = recordingScripted();
    await withWorker(
      server.env,
      profiled(
        'delegate',
        [ask('delegate_to_specialist', 'astrology')],
        [
          {
            whenIncludes: 'Kind of specialist asked for: astrology',
            reply: { text: '{"none": "nobody reads stars here"}' },
          },
        ],
      ),
      (baton) => baton.run('desk', 'my horoscope'),
      { providers: none.providers },
    );
    expect(
      none.calls
        .filter((c) => c.agentId === 'desk')
        .at(-1)!
        .messages.at(-1)!.content,
    ).toBe(
      'No specialist fits "astrology": nobody reads stars here. Answer yourself or ask for another kind of specialist.',
    );
  });
});
