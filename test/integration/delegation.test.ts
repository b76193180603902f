/** Delegation with a return path, capability routing and fan-out, as child workflows on a real server. */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { defineAgent, defineTool, delegate, scripted, Team } from '../../src';
import { BatonStatus, DelegationFailedError, type ScriptedStep } from '../../src/workflow';
import { formatTimeline, toMermaid } from '../../src/audit';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const task = (to: string, what: string): ScriptedStep => ({
  toolCalls: [{ name: 'delegate', arguments: { to, task: what, reason: `${to} knows` } }],
});
const tasks = (...list: [string, string][]): ScriptedStep => ({
  toolCalls: list.map(([to, what]) => ({ name: 'delegate', arguments: { to, task: what, reason: 'parallel' } })),
});
/** A caller that delegates once, then answers with whatever its tools told it. */
const summarizer = { rules: [{ whenIncludes: '', reply: { text: 'summarized' } }] };

const childrenOf = async (workflowId: string) => {
  const found: { workflowId: string; status: string; parent?: unknown }[] = [];
  for await (const wf of server.env.client.workflow.list({ query: `WorkflowId STARTS_WITH "${workflowId}/"` }))
    found.push({ workflowId: wf.workflowId, status: wf.status.name, parent: wf.memo?.batonParent });
  return found;
};

describe('delegation', () => {
  it('runs the specialist as a child chain and returns its answer to the caller, who goes on', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([
      defineAgent({
        id: 'triage',
        instructions: 'Generalist.',
        model: scripted([task('orders', 'look up order 42'), { text: 'Order 42 was delivered yesterday.' }]),
        handoffs: [delegate('orders', { maxTurns: 3 })],
      }),
      defineAgent({
        id: 'orders',
        instructions: 'Order specialist.',
        model: scripted([{ text: 'order 42: delivered yesterday' }]),
      }),
    ]);
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
    const team = new Team([
      defineAgent({
        id: 'lead',
        instructions: 'Lead.',
        model: scripted({ steps: [tasks(['broken', 'do it'], ['slow', 'do it slowly'])], ...summarizer }),
        handoffs: [delegate('broken'), delegate('slow', { timeout: '2 seconds' })],
      }),
      defineAgent({ id: 'broken', instructions: 'Broken.', model: scripted([]) }),
      defineAgent({ id: 'slow', instructions: 'Slow.', model: scripted([{ text: 'too late', delayMs: 10_000 }]) }),
    ]);
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
    const team = new Team([
      defineAgent({
        id: 'lead',
        instructions: 'Lead.',
        model: scripted({ steps: [task('mid', 'go deeper')], ...summarizer }),
        handoffs: [delegate('mid')],
      }),
      defineAgent({
        id: 'mid',
        instructions: 'Mid.',
        model: scripted({
          steps: [task('leaf', 'deeper still')],
          rules: [{ whenIncludes: '', reply: { text: 'did it myself' } }],
        }),
        handoffs: [delegate('leaf')],
      }),
      defineAgent({ id: 'leaf', instructions: 'Leaf.', model: scripted([{ text: 'leaf done' }]) }),
      defineAgent({
        id: 'boss',
        instructions: 'Boss.',
        model: scripted([task('broken', 'do it')]),
        handoffs: [delegate('broken', { onFailure: 'fail' })],
      }),
      defineAgent({ id: 'broken', instructions: 'Broken.', model: scripted([]) }),
    ]);
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
      const team = new Team([
        defineAgent({
          id: 'lead',
          instructions: 'Lead.',
          model: scripted({ steps: [tasks(['a', 'part a'], ['b', 'part b'], ['c', 'part c'])], ...summarizer }),
          handoffs: [delegate('a'), delegate('b'), delegate('c')],
        }),
        defineAgent({ id: 'a', instructions: 'A', model: scripted([{ text: 'a done', delayMs: 300 }]) }),
        defineAgent({ id: 'b', instructions: 'B', model: scripted([]) }),
        defineAgent({ id: 'c', instructions: 'C', model: scripted([{ text: 'c done' }]) }),
      ]);
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
    const team = new Team([
      defineAgent({
        id: 'top',
        instructions: 'Top.',
        model: scripted({ steps: [task('middle', 'organise it')], ...summarizer }),
        handoffs: [delegate('middle')],
      }),
      defineAgent({
        id: 'middle',
        instructions: 'Middle.',
        model: scripted({ steps: [task('leaf', 'do the risky part')], ...summarizer }),
        handoffs: [delegate('leaf')],
      }),
      defineAgent({
        id: 'leaf',
        instructions: 'Leaf.',
        model: scripted([{ handoff: { to: 'vault', message: 'open the vault' } }]),
        handoffs: ['vault'],
      }),
      defineAgent({
        id: 'vault',
        instructions: 'Vault.',
        model: scripted([{ text: 'vault opened' }]),
        approval: { approvers: ['alice'] },
      }),
    ]);
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
    const file = defineTool({
      name: 'file',
      description: 'File the report',
      parameters: z.object({}),
      execute: () => {
        if (broken) throw ApplicationFailure.nonRetryable('the archive is down', 'ArchiveDown');
        return 'filed';
      },
    });
    const team = new Team([
      defineAgent({
        id: 'lead',
        instructions: 'Lead.',
        tools: [file],
        model: scripted([
          tasks(['a', 'part a'], ['b', 'part b']),
          { toolCalls: [{ name: 'file', arguments: {} }] },
          { text: 'report filed' },
        ]),
        handoffs: [delegate('a'), delegate('b')],
      }),
      defineAgent({ id: 'a', instructions: 'A', model: scripted([{ text: 'a done' }]) }),
      defineAgent({ id: 'b', instructions: 'B', model: scripted([{ text: 'b done' }]) }),
    ]);
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
    const team = new Team([
      defineAgent({
        id: 'lead',
        instructions: 'Lead.',
        model: scripted([task('slow', 'take your time')]),
        handoffs: [delegate('slow')],
      }),
      defineAgent({ id: 'slow', instructions: 'Slow.', model: scripted([{ text: 'never', delayMs: 60_000 }]) }),
    ]);
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
  const profiled = (
    routing: 'transfer' | 'delegate',
    lead: ScriptedStep[],
    routerRules: { whenIncludes: string; reply: ScriptedStep }[] = [],
  ) =>
    new Team([
      defineAgent({
        id: 'desk',
        instructions: 'Front desk.',
        routing,
        handoffs: [],
        model: scripted({
          steps: lead,
          rules: [...routerRules, { whenIncludes: '', reply: { text: 'desk answers' } }],
        }),
      }),
      defineAgent({
        id: 'billing',
        instructions: 'Billing.',
        profile: { specialization: 'billing', capabilities: ['refunds', 'invoices'] },
        model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'billing done' } }] }),
      }),
      defineAgent({
        id: 'shipping',
        instructions: 'Shipping.',
        profile: { specialization: 'logistics', capabilities: ['tracking', 'returns'] },
        model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'shipping done' } }] }),
      }),
    ]);
  const ask = (name: string, type: string, required: string[] = []): ScriptedStep => ({
    toolCalls: [
      {
        name,
        arguments: {
          specialist_type: type,
          task: 'help the customer',
          reason: 'not mine',
          required_capabilities: required,
        },
      },
    ],
  });

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
