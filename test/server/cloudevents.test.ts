/** Signed CloudEvents start chains once per event, on a real Temporal server and worker. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { withService } from './service';

const server = useTemporalServer();
const SECRET = 'a-shared-webhook-secret';

function deliver(url: string, body: string, headers: Record<string, string> = {}, secret = SECRET): Promise<Response> {
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return fetch(`${url}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json', 'x-baton-signature': signature, ...headers },
    body,
  });
}

describe('CloudEvents that start chains', () => {
  it('an event delivered three times starts one chain; unsigned, badly signed, malformed and unruled events are refused', async () => {
    const team = new Team([scriptedAgent('intake', [{ text: 'Logged the damaged order.' }])]);
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const event = JSON.stringify({
          specversion: '1.0',
          id: 'evt-1',
          source: 'shop/orders',
          type: 'order.damaged',
          data: 'Order 42 arrived broken.',
        });
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await deliver(service.url, event));
        const bodies = (await Promise.all(answers.map((a) => a.json()))) as { workflowId: string; created: boolean }[];
        expect(answers.map((a) => a.status)).toEqual([202, 200, 200]);
        expect(new Set(bodies.map((b) => b.workflowId)).size).toBe(1);
        expect(bodies.map((b) => b.created)).toEqual([true, false, false]);
        const workflowId = bodies[0]!.workflowId;
        expect((await baton.getRun(workflowId).result()).output).toBe('Logged the damaged order.');
        // Delivered again after the chain ended: still the one chain.
        const late = await deliver(service.url, event);
        expect(late.status).toBe(200);
        const count = async () => {
          let runs = 0;
          for await (const _ of baton.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs += 1;
          return runs;
        };
        expect(await waitFor(count, (n) => n > 0)).toBe(1);
        expect((await baton.audit(workflowId)).input).toMatchObject({
          agent: 'intake',
          input: 'Order 42 arrived broken.',
        });

        expect(
          (
            await fetch(`${service.url}/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/cloudevents+json' },
              body: event,
            })
          ).status,
        ).toBe(401);
        expect((await deliver(service.url, event, {}, 'another-secret-entirely')).status).toBe(401);
        const malformed = await deliver(
          service.url,
          JSON.stringify({ specversion: '1.0', id: 'evt-2', source: 'shop/orders' }),
        );
        expect(malformed.status).toBe(400);
        expect(((await malformed.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual([
          'type',
        ]);
        const unruled = await deliver(
          service.url,
          JSON.stringify({ specversion: '1.0', id: 'evt-3', source: 'shop/orders', type: 'order.shipped' }),
        );
        expect(unruled.status).toBe(422);

        // Binary mode: the attributes in ce-* headers, the body the data.
        const binary = await deliver(service.url, JSON.stringify({ order: 43 }), {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': 'evt-4',
          'ce-source': 'shop/orders',
          'ce-type': 'order.damaged',
        });
        expect(binary.status).toBe(202);
        const started = (await binary.json()) as { workflowId: string };
        expect((await baton.audit(started.workflowId)).input).toMatchObject({ input: '{"order":43}' });
      },
      { service: { cloudEvents: { secret: SECRET, rules: [{ type: 'order.damaged', agent: 'intake' }] } } },
    );
  });
});

describe("CloudEvents by the team's rules", () => {
  it('a chain starts once and a conversation gets the message once, however often (and however concurrently) an event is delivered', async () => {
    const intake = scriptedAgent('intake', [{ text: 'Logged the damaged order.' }]);
    const support = scriptedAgent('support', [
      { text: 'Noted.' },
      { text: 'Still looking.', delayMs: 4_000 },
      { text: 'Pong.' },
    ]);
    const team = new Team([intake, support], {
      events: [
        {
          type: 'com.shop.order.damaged',
          start: 'intake',
          options: { maxHandoffs: 2, teamMismatchTimeout: '30 seconds' },
        },
        {
          type: 'com.shop.customer.replied',
          message: { conversation: '$.data.ticket', agent: 'support' },
          input: 'The customer wrote: {{$.data.text}}',
        },
        { type: 'com.shop.customer.pinged', message: { conversation: '$.subject', midTurn: 'reject' } },
      ],
    });
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const structured = (event: Record<string, unknown>) =>
          JSON.stringify({ specversion: '1.0', source: 'shop', ...event });
        const thrice = (body: string) => Promise.all([0, 1, 2].map(() => deliver(service.url, body)));

        // A chain: three deliveries at once, one chain.
        const order = await thrice(structured({ id: 'o-1', type: 'com.shop.order.damaged', data: { order: 42 } }));
        const started = (await Promise.all(order.map((a) => a.json()))) as { workflowId: string; created: boolean }[];
        expect(order.map((a) => a.status).sort()).toEqual([200, 200, 202]);
        expect(new Set(started.map((b) => b.workflowId)).size).toBe(1);
        const workflowId = started[0]!.workflowId;
        expect((await baton.getRun(workflowId).result()).output).toBe('Logged the damaged order.');
        let runs = 0;
        for await (const _ of baton.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs += 1;
        expect(runs).toBe(1);
        // The rule's run options are the chain's.
        expect((await baton.audit(workflowId)).input).toMatchObject({
          agent: 'intake',
          input: '{"order":42}',
          options: { maxHandoffs: 2, teamMismatchTimeout: '30 seconds' },
        });

        // A conversation that does not exist yet: the event starts it; three deliveries at once, one message.
        const reply = structured({
          id: 'r-1',
          type: 'com.shop.customer.replied',
          data: { ticket: 'T-7', text: 'It is still broken.' },
        });
        const replied = await thrice(reply);
        expect(replied.map((a) => a.status).every((s) => s === 202 || s === 200)).toBe(true);
        const chat = baton.conversation('support', { id: 'T-7' });
        await waitFor(
          () => chat.history(),
          (turns) => turns.length === 1 && turns[0]!.output !== undefined,
          30_000,
        );
        // Delivered again once answered: the conversation has it, nothing new.
        const late = await deliver(service.url, reply);
        expect(late.status).toBe(200);
        expect(await late.json()).toMatchObject({ conversation: 'T-7', created: false, status: 'answered' });
        expect((await chat.history()).map((t) => t.message)).toEqual(['The customer wrote: It is still broken.']);

        // A busy conversation that refuses messages mid-turn: 503 with Retry-After, and delivered again later, once.
        const turn = chat.send('Any news?', { idempotencyKey: 'user-2' });
        await waitFor(
          () => chat.status(),
          (s) => s.status === 'answering' && s.turns >= 2,
          30_000,
        );
        const ping = structured({ id: 'p-1', type: 'com.shop.customer.pinged', subject: 'T-7', data: 'ping' });
        const busy = await deliver(service.url, ping);
        expect(busy.status).toBe(503);
        expect(busy.headers.get('retry-after')).toBeTruthy();
        await turn;
        // Taken (202), or answered already while the request watched for a refusal (200): created either way, and once.
        const again = await deliver(service.url, ping);
        expect([200, 202]).toContain(again.status);
        expect(await again.json()).toMatchObject({ conversation: 'T-7', created: true });
        const third = await deliver(service.url, ping);
        expect(third.status).toBe(200);
        expect(await third.json()).toMatchObject({ created: false });
        await waitFor(
          () => chat.history(),
          (turns) => turns.length === 3 && turns[2]!.output !== undefined,
          30_000,
        );
        expect((await chat.history()).map((t) => t.message)).toEqual([
          'The customer wrote: It is still broken.',
          'Any news?',
          'ping',
        ]);

        // No conversation and no agent to start one: 422; an unknown type: 422 listing the rules; a bad signature: 401.
        const nowhere = await deliver(
          service.url,
          structured({ id: 'p-2', type: 'com.shop.customer.pinged', subject: 'T-404' }),
        );
        expect(nowhere.status).toBe(422);
        expect(await nowhere.text()).toMatch(/no conversation T-404.*message\.agent/);
        const unknown = await deliver(service.url, structured({ id: 'x-1', type: 'com.shop.order.shipped' }));
        expect(unknown.status).toBe(422);
        expect(await unknown.text()).toMatch(
          /com\.shop\.order\.damaged, com\.shop\.customer\.replied, com\.shop\.customer\.pinged/,
        );
        expect((await deliver(service.url, reply, {}, 'not-the-shared-secret')).status).toBe(401);
        expect(
          await baton
            .conversation('support', { id: 'T-404' })
            .status()
            .then(
              () => 'exists',
              () => 'none',
            ),
        ).toBe('none');
      },
      { service: { cloudEvents: { secret: SECRET, team } } },
    );
  });
});
