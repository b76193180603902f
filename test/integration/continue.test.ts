import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('continue-as-new', () => {
  it('carries a long chain across runs: the chain, usage and audit span them all', async () => {
    const hops = 24;
    const steps = (to: string): ScriptedStep[] =>
      Array.from({ length: hops / 2 }, (_, i) => ({ handoff: { to, message: `hop ${i}` } }));
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted(steps('b')) }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([...steps('a').slice(0, -1), { handoff: { to: 'c', message: 'last' } }]),
      }),
      defineAgent({ id: 'c', instructions: 'C', model: scripted([{ text: 'end of a long chain' }]) }),
    ]);
    const { result, audit } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { maxHandoffs: 50, continueAsNewAfterEvents: 40, loopWindow: 0 });
      const r = await run.result();
      return { result: r, audit: await baton.audit(run.workflowId) };
    });
    expect(result.output).toBe('end of a long chain');
    expect(result.handoffChain).toHaveLength(hops);
    expect(result.handoffChain.map((h) => h.turn)).toEqual(Array.from({ length: hops }, (_, i) => i + 1));
    expect(result.usage.modelCalls).toBe(hops + 1);
    expect(audit.runIds.length).toBeGreaterThan(3);
    expect(audit.status).toBe('completed');
    expect(audit.handoffs).toEqual(result.handoffChain);
    expect(audit.events.filter((e) => e.kind === 'continued_as_new')).toHaveLength(audit.runIds.length - 1);
    expect(audit.events.filter((e) => e.kind === 'model_turn')).toHaveLength(hops + 1);
  });

  it('carries a pending approval into the next run, where it is decided', async () => {
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted([{ handoff: { to: 'b', message: 'needs a yes' } }]) }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([{ text: 'approved work done' }]),
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { continueAsNewAfterEvents: 60 });
      const [pending] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      // The run that asked for the approval; the chain may have continued as new before it asked.
      const firstRunId = (await run.handle.describe()).runId;
      // Refused decisions add to the history while the handoff waits, until the run continues as new:
      // each adds at least its signal event, so 60 events come within 60 signals however a loaded
      // worker batches them into workflow tasks.
      let runId = firstRunId;
      for (let i = 0; i < 80 && runId === firstRunId; i++) {
        await run.handle.signal('approveHandoff', { handoffId: pending!.handoffId, approver: 'mallory' });
        runId = (await run.handle.describe()).runId;
      }
      expect(runId).not.toBe(firstRunId);
      const carried = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      expect(carried[0]).toEqual(pending);
      expect((await run.status()).status).toBe('awaiting_approval');
      const listed = await waitFor(
        () => baton.pending(),
        (all) => all.some((p) => p.workflowId === run.workflowId && p.runId !== firstRunId),
      );
      expect(listed.find((p) => p.workflowId === run.workflowId)?.handoffId).toBe(pending!.handoffId);

      await baton.approve(run.workflowId, pending!.handoffId, { approver: 'alice' });
      const result = await run.result();
      expect(result.output).toBe('approved work done');
      expect(result.handoffChain[0]?.approval).toMatchObject({
        approver: 'alice',
        outcome: 'approved',
        handoffId: pending!.handoffId,
      });

      const audit = await baton.audit(run.workflowId);
      expect(audit.runIds.length).toBeGreaterThanOrEqual(2);
      expect(audit.events.find((e) => e.kind === 'approval_requested')?.runId).toBe(firstRunId);
      expect(audit.events.find((e) => e.kind === 'approval_decided')?.runId).toBe(audit.runIds.at(-1));
      expect(audit.events.filter((e) => e.kind === 'decision_refused').length).toBeGreaterThan(0);
    });
  });
});
