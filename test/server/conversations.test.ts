/** Conversations over HTTP: the first message starts one, the active agent stays, a resent key gets the first reply. */
import { describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';

const server = useTemporalServer();

const team = () =>
  new Team([
    scriptedAgent('triage', [], {
      model: scripted({
        steps: [{ text: 'Hello from triage.' }, { handoff: { to: 'refunds', message: 'refund order 42' } }],
        requireAllSteps: false,
      }),
    }),
    scriptedAgent('refunds', [], {
      model: scripted({
        steps: [{ text: 'Refund for order 42 is done.' }, { text: 'You are welcome.' }],
        requireAllSteps: false,
      }),
    }),
  ]);

describe('conversations over HTTP', () => {
  it('start with the first message, keep the active agent, answer a resent key once, refuse bad bodies and unknown ids, and end', async () => {
    await withService(server.env, team(), async ({ call }) => {
      const id = `http-chat-${Date.now()}`;
      const send = (body: unknown, headers: Record<string, string> = {}) =>
        call('POST', `/v1/conversations/${id}/messages`, { token: TOKENS.ops, body, headers });

      const first = await send({ agent: 'triage', message: 'hi' });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ output: 'Hello from triage.', agent: 'triage' });

      const second = await send(
        { agent: 'triage', message: 'I want a refund for order 42' },
        { 'idempotency-key': 'refund-1' },
      );
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({
        output: 'Refund for order 42 is done.',
        agent: 'refunds',
        handoffs: [expect.objectContaining({ from: 'triage', to: 'refunds' })],
      });
      const again = await send(
        { agent: 'triage', message: 'I want a refund for order 42' },
        { 'idempotency-key': 'refund-1' },
      );
      expect(again.body).toEqual(second.body);

      const third = await send({ agent: 'triage', message: 'thanks' });
      expect(third.body).toMatchObject({ output: 'You are welcome.', agent: 'refunds' });

      const view = await call('GET', `/v1/conversations/${id}`, { token: TOKENS.viewer });
      expect(view.status).toBe(200);
      expect(
        (view.body as { turns: { message?: string; agent: string }[] }).turns.map((t) => [t.message, t.agent]),
      ).toEqual([
        ['hi', 'triage'],
        ['I want a refund for order 42', 'refunds'],
        ['thanks', 'refunds'],
      ]);

      const bad = await send({ agent: 'triage', message: '', extra: 1 });
      expect(bad.status).toBe(400);
      expect((bad.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(
        expect.arrayContaining(['message']),
      );
      const ghost = await send({ agent: 'ghost', message: 'hi' });
      expect(ghost.status).toBe(400);
      expect((ghost.body as { errors: { path: string; message: string }[] }).errors).toEqual([
        { path: 'agent', message: 'unknown agent "ghost" (the workers serve: triage, refunds)' },
      ]);
      const viewer = await call('POST', `/v1/conversations/${id}/messages`, {
        token: TOKENS.viewer,
        body: { agent: 'triage', message: 'hi' },
      });
      expect(viewer.status).toBe(403);
      const unknown = await call('GET', '/v1/conversations/no-such-conversation', { token: TOKENS.viewer });
      expect([unknown.status, (unknown.body as { detail: string }).detail]).toEqual([
        404,
        'no conversation no-such-conversation',
      ]);
      const endUnknown = await call('POST', '/v1/conversations/no-such-conversation/end', { token: TOKENS.ops });
      expect([endUnknown.status, (endUnknown.body as { detail: string }).detail]).toEqual([
        404,
        'no conversation no-such-conversation',
      ]);

      const ended = await call('POST', `/v1/conversations/${id}/end`, { token: TOKENS.ops });
      expect(ended.status).toBe(200);
      const late = await send({ agent: 'triage', message: 'one more' });
      expect(late.status).toBe(409);
      expect(JSON.stringify(late.body)).toMatch(/has ended|is ending/);
    });
  });
});
