/** A run's events, as they happen, from history long-polling. */
import { describe, expect, it } from 'vitest';
import { defineAgent, defineTool, MaxHandoffsExceededError, scripted, Team, type RunEvent } from '../../src';
import { z } from 'zod';
import { delegationScenario } from '../histories/auditScenarios';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();
const hop = (to: string) => ({ handoff: { to, message: `over to ${to}` } });

describe('BatonRun.events', () => {
  it('streams calls, handoffs, the approval and the answer in order, across continue-as-new', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      parameters: z.object({}),
      execute: () => 'found',
    });
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A',
        model: scripted([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, hop('b'), hop('b')]),
        tools: [lookup],
      }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([hop('a'), { text: 'done', delayMs: 300 }]),
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { continueAsNewAfterEvents: 20, loopWindow: 0 });
      const seen: RunEvent[] = [];
      for await (const e of run.events()) {
        seen.push(e);
        if (e.kind === 'approval_requested')
          await baton.approve(run.workflowId, e.approval.handoffId, { approver: 'alice' });
      }
      const kinds = seen.map((e) =>
        e.kind === 'handoff'
          ? `handoff ${e.handoff.from}>${e.handoff.to}`
          : e.kind === 'model_call'
            ? `model ${e.agent}`
            : e.kind,
      );
      expect(kinds.filter((k) => k !== 'model_answered' && k !== 'tool_answered' && k !== 'continued_as_new')).toEqual([
        'model a',
        'tool_call',
        'model a',
        'approval_requested',
        'approval_decided',
        'handoff a>b',
        'model b',
        'handoff b>a',
        'model a',
        'approval_requested',
        'approval_decided',
        'handoff a>b',
        'model b',
        'completed',
      ]);
      expect(kinds).toContain('continued_as_new');
      expect(new Set(seen.map((e) => e.runId)).size).toBeGreaterThan(1);
      expect(seen.at(-1)).toMatchObject({ kind: 'completed', result: { output: 'done' } });
    });
  });

  it("streams a delegation: the specialist started with its chain's id, its work, and the answer it returned", async () => {
    await withWorker(server.env, delegationScenario.team(), async (baton) => {
      const run = await baton.start('triage', 'where is order 42?');
      const seen: RunEvent[] = [];
      for await (const e of run.events()) seen.push(e);
      const child = `${run.workflowId}/orders-1.1`;
      const shown = seen
        .map((e) => (e.kind === 'specialist' ? `specialist ${e.workflowId}: ${e.event.kind}` : e.kind))
        .filter((k) => !/answered/.test(k));
      expect(shown).toEqual([
        'model_call',
        'delegation_started',
        `specialist ${child}: model_call`,
        `specialist ${child}: completed`,
        'delegation_ended',
        'model_call',
        'completed',
      ]);
      expect(seen.find((e) => e.kind === 'delegation_started')).toMatchObject({
        agent: 'triage',
        to: 'orders',
        workflowId: child,
        task: expect.stringContaining('Task from triage: look up order 42'),
      });
      expect(seen.find((e) => e.kind === 'delegation_ended')).toMatchObject({
        agent: 'triage',
        to: 'orders',
        workflowId: child,
        outcome: 'completed',
        output: 'order 42: delivered yesterday',
      });
      // Without the specialists' work: the chain's own events only.
      const own: string[] = [];
      for await (const e of baton.getRun(run.workflowId).events({ specialists: false })) own.push(e.kind);
      expect(own.filter((k) => k === 'specialist')).toEqual([]);
      expect(own).toContain('delegation_ended');
    });
  });

  it('ends with the typed error of a failed run', async () => {
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted([hop('b')]) }),
      defineAgent({ id: 'b', instructions: 'B', model: scripted([]) }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { maxHandoffs: 0 });
      const events: RunEvent[] = [];
      for await (const e of run.events()) events.push(e);
      const last = events.at(-1);
      expect(last?.kind).toBe('failed');
      expect(last?.kind === 'failed' && last.error).toBeInstanceOf(MaxHandoffsExceededError);
    });
  });
});
