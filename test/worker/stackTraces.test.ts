/**
 * The stack traces of baton's workflows are kept to 6 frames (workflows/stackDepth.ts): the stack
 * trace query of a chain in a model call still names where it waits, and no recorded stack is deeper.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('workflow stack traces', () => {
  it('name the model call a chain waits for, in at most 6 frames a stack', async () => {
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted([{ handoff: { to: 'b', message: 'over to b' } }]) }),
      defineAgent({ id: 'b', instructions: 'B', model: scripted([{ text: 'done', delayMs: 4000 }]) }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      const scheduled = temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED;
      // The second model call (agent b's, after the team's snapshot and agent a's) is scheduled: the chain waits in it.
      await waitFor(
        async () => (await run.handle.fetchHistory()).events ?? [],
        (events) => events.filter((e) => e.eventType === scheduled).length >= 3,
      );
      const trace = await run.handle.query<string>('__stack_trace');
      const stacks = trace.split('\n\n').map((s) => s.split('\n').filter((l) => l.trim().startsWith('at ')));
      // With V8's default of 10, the model call's stack here has 8 frames.
      expect(Math.max(...stacks.map((s) => s.length))).toBeLessThanOrEqual(6);
      expect(trace).toMatch(/at callModel \(.*workflows\/.*\.[jt]s:\d+:\d+\)/);
      expect((await run.result()).output).toBe('done');
    });
  });
});
