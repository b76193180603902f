import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team, type RunEvent } from '../../src';
import { formatTimeline } from '../../src/audit';
import { scriptedAgent as agent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

const hop = (to: string, message: string) => ({ handoff: { to, message } });

describe("model calls as local activities (modelActivity: 'local')", () => {
  it('runs the chain with markers instead of activities, and the audit, run events and timeline read them as model turns', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => `found ${q}`,
    });
    const team = new Team([
      agent(
        'a',
        [
          { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: { inputTokens: 7, outputTokens: 3 } },
          hop('b', 'over to b'),
        ],
        { tools: [lookup] },
      ),
      agent('b', [hop('c', 'over to c')]),
      agent('c', [{ text: 'done' }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { modelActivity: 'local' });
      const seen: RunEvent[] = [];
      for await (const e of run.events()) seen.push(e);
      const result = await run.result();
      expect(result).toMatchObject({ output: 'done', finalAgent: 'c', usage: { modelCalls: 4 } });

      const history = await run.handle.fetchHistory();
      const scheduled = (history.events ?? []).flatMap((e) =>
        e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
      );
      expect(scheduled).toEqual(['runTool']);
      const markers = (history.events ?? []).filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      );
      expect(markers).toHaveLength(5); // the team snapshot and four model calls

      const audit = await baton.audit(run.workflowId);
      const turns = audit.events.flatMap((e) => (e.kind === 'model_turn' ? [e] : []));
      expect(turns.map((t) => [t.agent, t.execution.status, t.execution.attempts])).toEqual([
        ['a', 'completed', 1],
        ['a', 'completed', 1],
        ['b', 'completed', 1],
        ['c', 'completed', 1],
      ]);
      expect(turns[0]).toMatchObject({
        model: 'scripted',
        inputTokens: 7,
        outputTokens: 3,
        toolCalls: [{ name: 'lookup', arguments: '{"q":"x"}' }],
      });
      expect(audit.team && Object.keys(audit.team.agents)).toEqual(['a', 'b', 'c']);
      expect(audit.handoffs.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>c']);
      expect(audit.events.find((e) => e.kind === 'tool_call')).toMatchObject({ tool: 'lookup', result: 'found x' });
      expect(formatTimeline(audit)).toMatch(/a\s+model scripted → lookup/);
      expect(seen.filter((e) => e.kind === 'model_call').map((e) => e.kind === 'model_call' && e.agent)).toEqual([
        'a',
        'a',
        'b',
        'c',
      ]);
      expect(seen.filter((e) => e.kind === 'model_answered')).toHaveLength(4);
    });
  });

  it("lets an agent's own modelActivity win over the run's, and keeps history to at most 7 events per handoff", async () => {
    const chain = (n: number) =>
      Array.from({ length: n + 1 }, (_, i) =>
        agent(`c${i}`, [i < n ? hop(`c${i + 1}`, `step ${i + 1}`) : { text: 'end' }], {
          modelActivity: i === n ? 'remote' : undefined,
        }),
      );
    await withWorker(server.env, new Team(chain(10)), async (baton) => {
      const run = await baton.start('c0', 'go', { modelActivity: 'local' });
      await run.result();
      const events = (await run.handle.fetchHistory()).events ?? [];
      const scheduled = events.flatMap((e) =>
        e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
      );
      expect(scheduled).toEqual(['callModel']); // c10 is remote
      expect(events.length / 10).toBeLessThanOrEqual(7);
    });
  });

  it('continues a failed chain from history without calling the model again for the turns it answered', async () => {
    let carrierDown = true;
    const ship = defineTool({
      name: 'ship',
      description: 'Ship',
      parameters: z.object({}),
      execute: () => {
        if (carrierDown) throw ApplicationFailure.nonRetryable('carrier down', 'CarrierError');
        return 'shipped';
      },
    });
    const { calls, providers } = recordingScripted();
    const team = new Team([
      agent('a', [hop('b', 'ship it')]),
      agent('b', [{ toolCalls: [{ name: 'ship', arguments: {} }] }, { text: 'shipped it' }], { tools: [ship] }),
    ]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('a', 'go', { modelActivity: 'local' });
        await expect(run.result()).rejects.toMatchObject({ name: 'ToolExecutionError' });
        expect(calls.map((c) => c.agentId)).toEqual(['a', 'b']);
        carrierDown = false;
        const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxTurns: 5 } } });
        expect(replayed).toMatchObject({ mechanism: 'resume', from: 'failed runTool' });
        const result = await baton.getRun(run.workflowId).result();
        expect(result).toMatchObject({ output: 'shipped it', finalAgent: 'b', handoffChain: [{ from: 'a', to: 'b' }] });
        // b's answer asking for ship came from history; only the turn after the tool is new.
        expect(calls.map((c) => c.agentId)).toEqual(['a', 'b', 'b']);
      },
      { providers },
    );
  });
});
