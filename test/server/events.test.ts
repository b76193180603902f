/** Server-Sent Events: a chain's events resumed with Last-Event-ID after a disconnect, across continue-as-new; the live approvals. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team } from '../../src';
import { delegationScenario } from '../histories/auditScenarios';
import { Baton } from '../../src/client/baton';
import { createWorker } from '../../src/worker';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withBareService, withService, type Caller } from './service';
import { connectSse, type SseEvent } from './sse';
import { refundTeam } from './team';

const server = useTemporalServer();
const hop = (to: string) => ({ handoff: { to, message: `over to ${to}` } });
const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

/** a → b (approved) → a → b (approved) → answer, long enough to continue as new on the way. */
function pingPongTeam(): Team {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up',
    parameters: z.object({}),
    execute: () => 'found',
  });
  return new Team([
    defineAgent({
      id: 'a',
      instructions: 'A',
      model: scripted([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, hop('b'), hop('b')]),
      tools: [lookup],
    }),
    defineAgent({
      id: 'b',
      instructions: 'B',
      model: scripted([hop('a'), { text: 'done' }]),
      approval: { approvers: ['alice'] },
    }),
  ]);
}

async function approve(call: Caller, workflowId: string, e: SseEvent) {
  const answer = await call('POST', `/v1/runs/${workflowId}/approvals/${e.data.approval.handoffId}`, {
    token: TOKENS.alice,
    body: { decision: 'approve' },
  });
  expect(answer.status).toBe(200);
}

describe('event streams', () => {
  it('resumes a chain after a disconnect from the Last-Event-ID on, without gaps or repeats, across continue-as-new', async () => {
    await withService(server.env, pingPongTeam(), async ({ service, call }) => {
      const started = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: { agent: 'a', input: 'go', options: { continueAsNewAfterEvents: 20, loopWindow: 0 } },
      });
      const { workflowId } = started.body;
      const url = `${service.url}/v1/runs/${workflowId}/events`;

      const first = await connectSse(url, auth(TOKENS.viewer));
      expect(first.status).toBe(200);
      const before: SseEvent[] = [];
      for await (const e of first.events) {
        before.push(e);
        if (e.event === 'approval_requested') break;
      }
      first.close();
      await approve(call, workflowId, before.at(-1)!);

      const second = await connectSse(url, auth(TOKENS.viewer, { 'last-event-id': before.at(-1)!.id! }));
      const after: SseEvent[] = [];
      for await (const e of second.events) {
        after.push(e);
        if (e.event === 'approval_requested') await approve(call, workflowId, e);
      }
      expect(after.at(-1)).toMatchObject({ event: 'completed', data: { result: { output: 'done' } } });

      const whole: SseEvent[] = [];
      for await (const e of (await connectSse(url, auth(TOKENS.viewer))).events) whole.push(e);
      expect([...before, ...after].map((e) => [e.id, e.event])).toEqual(whole.map((e) => [e.id, e.event]));
      // The chain may continue as new while it waits; the decision is the first thing that happens after.
      expect(after.find((e) => e.event !== 'continued_as_new')!.event).toBe('approval_decided');
      expect(whole.map((e) => e.event)).toContain('continued_as_new');
      const runs = new Set(whole.map((e) => e.id!.split(':')[0]));
      expect(runs.size).toBeGreaterThan(1);
      expect(
        whole.filter((e) => e.event === 'handoff').map((e) => `${e.data.handoff.from}>${e.data.handoff.to}`),
      ).toEqual(['a>b', 'b>a', 'a>b']);

      // From an event of the first run: everything after it, through the later runs.
      const cut = whole.findIndex((e) => e.event === 'tool_call');
      const resumed: SseEvent[] = [];
      for await (const e of (await connectSse(url, auth(TOKENS.viewer, { 'last-event-id': whole[cut]!.id! }))).events)
        resumed.push(e);
      expect(resumed.map((e) => e.id)).toEqual(whole.slice(cut + 1).map((e) => e.id));
    });
  });

  it("streams a delegation with the specialist's own events, and resumes inside them from a Last-Event-ID", async () => {
    await withService(server.env, delegationScenario.team(), async ({ service, call }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'where is order 42?' } })
      ).body;
      const url = `${service.url}/v1/runs/${encodeURIComponent(workflowId)}/events`;
      const whole: SseEvent[] = [];
      for await (const e of (await connectSse(url, auth(TOKENS.viewer))).events) whole.push(e);
      const shown = whole
        .map((e) => (e.event === 'specialist' ? `specialist ${e.data.workflowId}: ${e.data.event.kind}` : e.event))
        .filter((k) => !/answered/.test(k));
      expect(shown).toEqual([
        'model_call',
        'delegation_started',
        `specialist ${workflowId}/orders-1.1: model_call`,
        `specialist ${workflowId}/orders-1.1: completed`,
        'delegation_ended',
        'model_call',
        'completed',
      ]);
      expect(whole.find((e) => e.event === 'delegation_ended')!.data).toMatchObject({
        to: 'orders',
        workflowId: `${workflowId}/orders-1.1`,
        output: 'order 42: delivered yesterday',
      });
      const inside = whole.findIndex((e) => e.event === 'specialist');
      const resumed: SseEvent[] = [];
      for await (const e of (await connectSse(url, auth(TOKENS.viewer, { 'last-event-id': whole[inside]!.id! })))
        .events)
        resumed.push(e);
      expect(resumed.map((e) => e.id)).toEqual(whole.slice(inside + 1).map((e) => e.id));
    });
  });

  it('ends with the typed error of a failed chain, and refuses unknown chains and callers without a token', async () => {
    await withService(server.env, refundTeam(), async ({ service, call }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'refund', options: { maxHandoffs: 0 } },
        })
      ).body;
      const events: SseEvent[] = [];
      for await (const e of (await connectSse(`${service.url}/v1/runs/${workflowId}/events`, auth(TOKENS.viewer)))
        .events)
        events.push(e);
      expect(events.at(-1)).toMatchObject({ event: 'failed', data: { error: { type: 'MaxHandoffsExceededError' } } });
      expect((await connectSse(`${service.url}/v1/runs/nope/events`, auth(TOKENS.viewer))).status).toBe(404);
      expect((await connectSse(`${service.url}/v1/runs/${workflowId}/events`, {})).status).toBe(401);
    });
  });

  it('pushes the waiting approvals whenever they change', async () => {
    await withService(server.env, refundTeam(), async ({ service, call }) => {
      const stream = await connectSse(`${service.url}/v1/approvals/events`, auth(TOKENS.alice));
      const next = async () => (await stream.events.next()).value as SseEvent;
      expect(await next()).toMatchObject({ event: 'approvals', data: { approvals: [] } });
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'refund order 42' } })
      ).body;
      const listed = await next();
      expect(listed.data.approvals).toMatchObject([
        { workflowId, from: 'triage', to: 'refunds', canDecide: true, chain: [] },
      ]);
      await call('POST', `/v1/runs/${workflowId}/approvals/${listed.data.approvals[0].handoffId}`, {
        token: TOKENS.alice,
        body: { decision: 'approve' },
      });
      expect(await next()).toMatchObject({ event: 'approvals', data: { approvals: [] } });
      stream.close();
    });
  });

  it("gives a waiting approval its chain once the chain's workers answer, though what waits did not change", async () => {
    const team = refundTeam();
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const worker = () => createWorker({ team, connection: server.env.nativeConnection, taskQueue: queue });
    const { workflowId } = await (
      await worker()
    ).runUntil(async () => {
      const run = await baton.start('triage', 'refund order 42');
      await waitFor(
        () => baton.pending(),
        (p) => p.some((a) => a.workflowId === run.workflowId),
      );
      return run;
    });
    // No worker serves the chain now: the query of its chain so far times out, its request is read from its history.
    await withBareService(
      server.env,
      async ({ service }) => {
        const stream = await connectSse(`${service.url}/v1/approvals/events`, auth(TOKENS.alice));
        const next = async () => (await stream.events.next()).value as SseEvent;
        const first = (await next()).data.approvals;
        expect(first).toMatchObject([{ workflowId, canDecide: true, request: { input: 'refund order 42' } }]);
        expect(first[0].chain).toBeUndefined();
        await (
          await worker()
        ).runUntil(async () => {
          expect((await next()).data.approvals).toMatchObject([{ workflowId, chain: [] }]);
        });
        stream.close();
      },
      { baton, agents: team.ids, approvalsPollMs: 200 },
    );
  });
});
