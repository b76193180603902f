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
  return fetch(`${url}/events`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json', 'x-baton-signature': signature, ...headers }, body });
}

describe('CloudEvents that start chains', () => {
  it('an event delivered three times starts one chain; unsigned, badly signed, malformed and unruled events are refused', async () => {
    const team = new Team([scriptedAgent('intake', [{ text: 'Logged the damaged order.' }])]);
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const event = JSON.stringify({ specversion: '1.0', id: 'evt-1', source: 'shop/orders', type: 'order.damaged', data: 'Order 42 arrived broken.' });
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
        expect((await baton.audit(workflowId)).input).toMatchObject({ agent: 'intake', input: 'Order 42 arrived broken.' });

        expect((await fetch(`${service.url}/events`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: event })).status).toBe(401);
        expect((await deliver(service.url, event, {}, 'another-secret-entirely')).status).toBe(401);
        const malformed = await deliver(service.url, JSON.stringify({ specversion: '1.0', id: 'evt-2', source: 'shop/orders' }));
        expect(malformed.status).toBe(400);
        expect(((await malformed.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['type']);
        const unruled = await deliver(service.url, JSON.stringify({ specversion: '1.0', id: 'evt-3', source: 'shop/orders', type: 'order.shipped' }));
        expect(unruled.status).toBe(422);

        // Binary mode: the attributes in ce-* headers, the body the data.
        const binary = await deliver(service.url, JSON.stringify({ order: 43 }), { 'content-type': 'application/json', 'ce-specversion': '1.0', 'ce-id': 'evt-4', 'ce-source': 'shop/orders', 'ce-type': 'order.damaged' });
        expect(binary.status).toBe(202);
        const started = (await binary.json()) as { workflowId: string };
        expect((await baton.audit(started.workflowId)).input).toMatchObject({ input: '{"order":43}' });
      },
      { service: { cloudEvents: { secret: SECRET, rules: [{ type: 'order.damaged', agent: 'intake' }] } } },
    );
  });
});
