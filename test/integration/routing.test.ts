/**
 * Several specialists of one capability: capability routing picks among them by the run's
 * strategy — round robin, least loaded, best recent success rate — records the decision with the
 * figures it used, and replays it exactly.
 */
import { describe, expect, it } from 'vitest';
import { Baton, defineAgent, scripted, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { checkHistories, historiesFromServer } from '../../src/worker/determinism';
import { formatTimeline } from '../../src/audit/format';
import type { AuditEvent } from '../../src/audit/chain';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const SPECIALISTS = ['refunds-a', 'refunds-b', 'refunds-c'];
const ask = (n: number): ScriptedStep => ({
  toolCalls: Array.from({ length: n }, (_, i) => ({
    name: 'delegate_to_specialist',
    arguments: { specialist_type: 'refunds', task: `refund order ${i + 1}`, reason: 'money' },
  })),
});

/** A desk that asks for `n` refunds specialists in one turn, then answers; three specialists of the same profile. */
function team(n: number, ids = SPECIALISTS): Team {
  const desk = defineAgent({
    id: 'desk',
    instructions: 'Route.',
    model: scripted([ask(n), { text: 'done' }]),
    routing: 'delegate',
  });
  const specialists = ids.map((id) =>
    defineAgent({
      id,
      description: 'Refunds',
      instructions: 'Refund.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: `${id} refunded it` } }] }),
      profile: { specialization: 'refunds', capabilities: ['refund'] },
    }),
  );
  return new Team([desk, ...specialists]);
}

type Decision = Extract<AuditEvent, { kind: 'routing_decided' }>;
const decisions = (events: AuditEvent[]) => events.filter((e): e is Decision => e.kind === 'routing_decided');

describe('routing strategies among specialists of one capability', () => {
  it('round robin gives each request of a turn the next specialist, from a place set by the chain', async () => {
    await withWorker(server.env, team(3), async (baton) => {
      const run = await baton.start('desk', 'three refunds', { routingStrategy: 'round_robin' });
      await run.result();
      const audit = await baton.audit(run.workflowId);
      const picked = decisions(audit.events);
      expect(picked.map((d) => d.figures.turn)).toEqual([0, 1, 2]);
      expect(new Set(picked.map((d) => d.chosen)).size).toBe(3);
      const offset = picked[0]!.figures.offset!;
      expect(picked.map((d) => d.chosen)).toEqual([0, 1, 2].map((t) => SPECIALISTS[(offset + t) % 3]));
      expect(audit.children!.map((c) => c.input!.agent).sort()).toEqual(SPECIALISTS);
      expect(formatTimeline(audit)).toMatch(
        /desk\s+asks for a refunds specialist: refunds-\w by round robin among refunds-a, refunds-b, refunds-c: in turn: request 1 of its kind/,
      );
      expect(await checkHistories(await historiesFromServer(server.env.client, [run.workflowId]))).toEqual([
        { source: run.workflowId, ok: true },
      ]);
    });
  });

  it('least loaded picks the specialist with the fewest chains in flight, and success rate the one that ended well most often', async () => {
    const idle = taskQueue();
    // Chains in flight at refunds-a (two) and refunds-b (one): started on a queue no worker polls.
    const busy = await withWorker(server.env, team(1), async (baton) => {
      const waiting = new Baton({ client: baton.client, taskQueue: idle });
      return Promise.all(['refunds-a', 'refunds-a', 'refunds-b'].map((agent) => waiting.start(agent, 'waits')));
    });
    const count = (agent: string) =>
      server.env.client.workflow.count(`BatonAgent = "${agent}" AND ExecutionStatus = "Running"`).then((c) => c.count);
    await waitFor(
      () => Promise.all([count('refunds-a'), count('refunds-b')]),
      ([a, b]) => a === 2 && b === 1,
    );
    await withWorker(server.env, team(1), async (baton) => {
      const run = await baton.start('desk', 'a refund', { routingStrategy: 'least_loaded' });
      await run.result();
      const [d] = decisions((await baton.audit(run.workflowId)).events);
      expect(d).toMatchObject({
        strategy: 'least_loaded',
        chosen: 'refunds-c',
        candidates: SPECIALISTS,
        figures: { inFlight: { 'refunds-a': 2, 'refunds-b': 1, 'refunds-c': 0 } },
      });
      expect(d!.reason).toBe('fewest chains in flight (refunds-a 2, refunds-b 1, refunds-c 0)');
      expect(await checkHistories(await historiesFromServer(server.env.client, [run.workflowId]))).toEqual([
        { source: run.workflowId, ok: true },
      ]);
    });
    await Promise.all(busy.map((r) => r.handle.terminate('the test is done with it')));

    // Recent outcomes (of specialists no other test used): chains that ended at rate-a failed, at rate-b completed; rate-c has none.
    const rated = ['rate-a', 'rate-b', 'rate-c'];
    const history = new Team(
      rated.map((id) =>
        defineAgent({
          id,
          instructions: 'Refund.',
          model: scripted({
            rules: [
              {
                whenIncludes: '',
                reply: id === 'rate-a' ? { handoff: { to: 'nobody', message: 'x' } } : { text: 'ok' },
              },
            ],
          }),
        }),
      ),
    );
    await withWorker(server.env, history, async (baton) => {
      const ended = await Promise.all(
        ['rate-a', 'rate-a', 'rate-b', 'rate-b', 'rate-b'].map((agent) => baton.start(agent, 'a refund')),
      );
      await Promise.allSettled(ended.map((r) => r.result()));
    });
    const closed = (agent: string) =>
      server.env.client.workflow.count(`BatonAgent = "${agent}" AND ExecutionStatus != "Running"`).then((c) => c.count);
    await waitFor(
      () => Promise.all([closed('rate-a'), closed('rate-b')]),
      ([a, b]) => a === 2 && b === 3,
    );
    await withWorker(server.env, team(1, rated), async (baton) => {
      const run = await baton.start('desk', 'a refund', { routingStrategy: 'success_rate' });
      await run.result();
      const [d] = decisions((await baton.audit(run.workflowId)).events);
      // Laplace's rule: (completed + 1) / (ended + 2).
      expect(d).toMatchObject({
        strategy: 'success_rate',
        chosen: 'rate-b',
        figures: { successRate: { 'rate-a': 0.25, 'rate-b': 0.8, 'rate-c': 0.5 } },
      });
      expect(d!.reason).toBe('best success rate in the last hour (rate-a 0.25, rate-b 0.8, rate-c 0.5)');
      expect(await checkHistories(await historiesFromServer(server.env.client, [run.workflowId]))).toEqual([
        { source: run.workflowId, ok: true },
      ]);
    });
  });

  it('picks the first in team order without a strategy, recording nothing', async () => {
    await withWorker(server.env, team(2), async (baton) => {
      const run = await baton.start('desk', 'two refunds');
      await run.result();
      const audit = await baton.audit(run.workflowId);
      expect(decisions(audit.events)).toEqual([]);
      expect(audit.children!.map((c) => c.input!.agent)).toEqual(['refunds-a', 'refunds-a']);
    });
  });
});
