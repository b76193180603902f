import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, defineTool, MaxHandoffsExceededError, scripted, Team, ToolExecutionError } from '../../src';
import { exportAudit } from '../../src/audit';
import { UserError, type HandoffRunInput } from '../../src/workflow';
import { fromPayloads } from '../../src/payloads/read';
import { waitFor } from '../helpers/wait';
import { handoffsInHistory } from '../helpers/history';
import { recordingScripted } from '../helpers/models';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { scriptedAgent as agent } from '../helpers/agents';

const server = useTemporalServer();
const hop = (to: string) => ({ handoff: { to, message: `over to ${to}` } });

describe('replay of failed chains', () => {
  it('continues after a tool failed at the third handoff, without calling the model or tools again for the prefix', async () => {
    let broken = true;
    let executions = 0;
    const shipped: string[] = [];
    const attempted: string[] = [];
    const ship = defineTool({
      name: 'ship',
      description: 'Ship an order',
      parameters: z.object({ orderId: z.string() }),
      execute: ({ orderId }, { idempotencyKey }) => {
        executions++;
        attempted.push(idempotencyKey);
        if (broken) throw ApplicationFailure.nonRetryable('carrier API rejected the label', 'CarrierError');
        shipped.push(idempotencyKey);
        return `shipped ${orderId}`;
      },
    });
    const note = defineTool({
      name: 'note',
      description: 'Note',
      parameters: z.object({}),
      execute: () => (executions++, 'noted'),
    });
    const { calls, providers } = recordingScripted();
    const hooks: string[] = [];
    const team = new Team([
      agent('a', [{ toolCalls: [{ name: 'note', arguments: {} }] }, hop('b')], { tools: [note] }),
      agent('b', [hop('c')]),
      agent('c', [hop('d')]),
      agent('d', [{ toolCalls: [{ name: 'ship', arguments: { orderId: '7' } }] }, { text: 'order 7 shipped' }], {
        tools: [ship],
      }),
    ]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('a', 'ship order 7');
        const failure = await run.result().catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(ToolExecutionError);
        expect(calls.map((c) => c.agentId)).toEqual(['a', 'a', 'b', 'c', 'd']);
        expect(executions).toBe(2);

        broken = false; // the fix is deployed
        calls.length = 0;
        executions = 0;
        const replayed = await baton.replay(run.workflowId);
        expect(replayed).toMatchObject({ from: 'failed runTool', mechanism: 'reset' });
        expect(replayed.runId).not.toBe(replayed.baseRunId);
        const result = await baton.getRun(run.workflowId).result();

        expect(result.output).toBe('order 7 shipped');
        expect(result.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>c', 'c>d']);
        expect(calls.map((c) => c.agentId)).toEqual(['d']); // only the turn after the fixed tool
        expect(executions).toBe(1); // only the tool that failed
        // The replayed call is the failed call again: the same idempotency key (turn 5, first call).
        expect(shipped).toEqual([attempted[0]]);
        expect(shipped[0]).toMatch(new RegExp(`^${run.workflowId}:d:5\\.1:[0-9a-f]{8}$`));
        expect(hooks).toEqual(['b', 'c', 'd']); // no handoff recorded twice
        expect((await handoffsInHistory(baton.getRun(run.workflowId).handle)).map((h) => h.entry.index)).toEqual([
          1, 2, 3,
        ]);

        const audit = await baton.audit(run.workflowId);
        expect(audit.status).toBe('completed');
        expect(audit.lineage).toEqual([
          expect.objectContaining({ runId: replayed.runId, replayedFrom: replayed.baseRunId }),
        ]);
        expect(audit.events.some((e) => e.kind === 'replayed_from')).toBe(true);
        const failed = await baton.audit(run.workflowId, replayed.baseRunId);
        expect(failed.status).toBe('failed');
        expect(failed.replayedBy).toBe(replayed.runId);
      },
      { providers, hooks: { agent_handoff: [(_c, _a, h) => void hooks.push(h.to)] } },
    );
  });

  it('replays from handoff N, with a changed model for what follows', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([agent('a', [hop('b')]), agent('b', [hop('c')]), agent('c', [{ text: 'first answer' }])]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const first = await baton.run('a', 'go');
        expect(first.output).toBe('first answer');
        calls.length = 0;
        const replayed = await baton.replay(first.workflowId, {
          fromHandoff: 2,
          overrides: { models: { c: scripted([{ text: 'second answer' }]) } },
        });
        expect(replayed).toMatchObject({ from: 'handoff 2', mechanism: 'resume' });
        const result = await baton.getRun(first.workflowId).result();
        expect(result.output).toBe('second answer');
        expect(result.handoffChain.map((h) => h.to)).toEqual(['b', 'c']);
        expect(result.handoffChain[0]).toEqual(first.handoffChain[0]); // carried over, not redone
        expect(calls.map((c) => c.agentId)).toEqual(['b', 'c']); // a's turn came from history
        const audit = await baton.audit(first.workflowId);
        expect(audit.lineage).toEqual([
          expect.objectContaining({
            runId: replayed.runId,
            replayedFrom: replayed.baseRunId,
            reason: 'baton replay from handoff 2',
          }),
        ]);
        expect(audit.handoffs.map((h) => h.to)).toEqual(['b', 'c']);
        expect((await baton.audit(first.workflowId, replayed.baseRunId)).replayedBy).toBe(replayed.runId);
      },
      { providers },
    );
  });

  it("keeps the decisions taken before a replay with overrides in the chain's audit and export", async () => {
    const { providers } = recordingScripted();
    const team = new Team([
      agent('a', [hop('b')]),
      agent('b', [hop('c')], { approval: { approvers: ['alice'] } }),
      agent('c', [{ text: 'settled' }]),
    ]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('a', 'go', { maxHandoffs: 1 });
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
        expect(await run.result().catch((e: unknown) => e)).toBeInstanceOf(MaxHandoffsExceededError);
        const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxHandoffs: 5 } } });
        expect(replayed).toMatchObject({ mechanism: 'resume' });
        expect((await baton.getRun(run.workflowId).result()).output).toBe('settled');

        const audit = await baton.audit(run.workflowId);
        expect(audit).toMatchObject({ status: 'completed', runIds: [replayed.baseRunId, replayed.runId] });
        expect(audit.failure).toBeUndefined();
        expect(audit.handoffs.map((h) => h.to)).toEqual(['b', 'c']);
        expect(audit.lineage).toEqual([
          expect.objectContaining({ runId: replayed.runId, replayedFrom: replayed.baseRunId }),
        ]);
        const decided = exportAudit(audit).events.flatMap((e) =>
          e.event.kind === 'approval_decided' ? [[e.event.handoffId, e.event.outcome, e.event.runId]] : [],
        );
        expect(decided).toEqual([[waiting!.handoffId, 'approved', replayed.baseRunId]]);
      },
      { providers },
    );
  });

  it('replays a MaxHandoffsExceededError run with a raised limit', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([
      agent('a', [hop('b'), hop('b'), hop('b')]),
      agent('b', [hop('a'), hop('a'), { text: 'settled' }]),
    ]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('a', 'go', { maxHandoffs: 3, loopWindow: 0 });
        expect(await run.result().catch((e: unknown) => e)).toBeInstanceOf(MaxHandoffsExceededError);
        const before = calls.length;
        await expect(baton.replay(run.workflowId, { overrides: { options: { maxHandoffs: -2 } } })).rejects.toThrow(
          UserError,
        );
        const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxHandoffs: 10 } } });
        expect(replayed).toMatchObject({ from: 'last step', mechanism: 'resume' });
        const result = await baton.getRun(run.workflowId).result();
        expect(result.output).toBe('settled');
        expect(result.handoffChain).toHaveLength(5);
        expect(before).toBe(4);
        expect(calls.length - before).toBe(2); // b's last hop and answer; the refused turn was not asked again
      },
      { providers },
    );
  });

  it('with overrides, calls a tool of the last answer that had completed again under the key it had', async () => {
    const keys: Record<'pack' | 'ship', string[]> = { pack: [], ship: [] };
    let carrierDown = true;
    const tool = (name: 'pack' | 'ship') =>
      defineTool({
        name,
        description: `${name} an order`,
        parameters: z.object({ orderId: z.string() }),
        execute: ({ orderId }, { idempotencyKey }) => {
          keys[name].push(idempotencyKey);
          if (name === 'ship' && carrierDown) throw ApplicationFailure.nonRetryable('carrier down', 'CarrierError');
          return `${name}ed ${orderId}`;
        },
      });
    const both = {
      toolCalls: [
        { name: 'pack', arguments: { orderId: '7' } },
        { name: 'ship', arguments: { orderId: '7' } },
      ],
    };
    const team = new Team([agent('a', [both, { text: 'sent' }], { tools: [tool('pack'), tool('ship')] })]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'send order 7');
      expect(await run.result().catch((e: unknown) => e)).toBeInstanceOf(ToolExecutionError);
      expect(keys.pack).toHaveLength(1);
      carrierDown = false;
      const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxTurns: 5 } } });
      expect(replayed).toMatchObject({ from: 'failed runTool', mechanism: 'resume' });
      expect((await baton.getRun(run.workflowId).result()).output).toBe('sent');
      expect(keys.pack).toEqual([keys.pack[0], keys.pack[0]]);
      expect(new Set(keys.ship).size).toBe(1);
      expect(keys.pack[0]).toMatch(new RegExp(`^${run.workflowId}:a:1\\.1:[0-9a-f]{8}$`));
    });
  });

  it('starts a chain that ended before its first step again from its input, with or without overrides', async () => {
    const team = new Team([agent('a', [hop('b')]), agent('b', [{ text: 'done' }])]);
    const baton = new Baton({ client: server.env.client, taskQueue: taskQueue() });
    const ended = async () => {
      // No worker polls yet: the chain is terminated before any step, as a chain no worker of its team took.
      const run = await baton.start('a', 'go', { maxTurns: 6, context: { note: 'kept' } });
      await run.handle.terminate('no worker of its team came');
      return { id: run.workflowId, base: (await run.handle.describe()).runId };
    };
    const plain = await ended();
    const raised = await ended();
    await withWorker(
      server.env,
      team,
      async () => {
        expect(await baton.replay(plain.id)).toMatchObject({
          from: 'start',
          mechanism: 'resume',
          baseRunId: plain.base,
        });
        expect((await baton.getRun(plain.id).result()).output).toBe('done');
        const over = await baton.replay(raised.id, { overrides: { options: { maxHandoffs: 3 } } });
        expect(over.from).toBe('start');
        expect((await baton.getRun(raised.id).result()).handoffChain).toHaveLength(1);
        const history = await baton.getRun(raised.id).handle.fetchHistory();
        const input = fromPayloads<HandoffRunInput>(
          history.events?.[0]?.workflowExecutionStartedEventAttributes?.input,
        );
        expect(input).toMatchObject({
          agent: 'a',
          input: 'go',
          options: { maxTurns: 6, maxHandoffs: 3 },
          context: { note: 'kept' },
        });
        const audit = await baton.audit(raised.id);
        expect(audit.lineage).toEqual([expect.objectContaining({ runId: over.runId, replayedFrom: raised.base })]);
      },
      { taskQueue: baton.taskQueue },
    );
  });

  it('refuses to replay a running chain or a handoff that does not exist', async () => {
    const team = new Team([agent('a', [hop('b')]), agent('b', [{ text: 'done', delayMs: 2000 }])]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      await expect(baton.replay(run.workflowId)).rejects.toThrow(/still running/);
      await run.result();
      await expect(baton.replay(run.workflowId)).rejects.toThrow(/replay it from a handoff/);
      await expect(baton.replay(run.workflowId, { fromHandoff: 4 })).rejects.toThrow(
        /fromHandoff must be 1 to 1, got 4/,
      );
    });
  });
});
