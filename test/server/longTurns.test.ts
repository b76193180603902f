/**
 * Requests that take long and requests sent again, over HTTP: a conversation turn waiting for an
 * approval answers 202 with where to follow it, and the same message sent again is answered once;
 * a message sent while no worker takes it answers 503 with its key, and sent again is one turn; a
 * start sent again is one chain.
 */
import { describe, expect, it } from 'vitest';
import { Baton, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { pendingOf, TOKENS, withService } from './service';

const server = useTemporalServer();

/** Triage hands off to refunds, which alice must approve; refunds answers each message after. */
const team = () =>
  new Team([
    scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
    scriptedAgent('refunds', [{ text: 'Refunded order 42.' }, { text: 'Anything else?' }, { text: 'Glad to help.' }], {
      approval: { approvers: ['alice'] },
    }),
  ]);

const turnsOf = async (call: Parameters<Parameters<typeof withService>[2]>[0]['call'], id: string) =>
  ((await call('GET', `/v1/conversations/${id}`, { token: TOKENS.viewer })).body as { turns: { message?: string }[] })
    .turns;

describe('long turns and retried requests over HTTP', () => {
  it('answers a turn that waits for an approval with 202 and where to follow it; the message sent again is the same message; sent once answered it is a new one', async () => {
    await withService(
      server.env,
      team(),
      async ({ call }) => {
        const id = `long-${Date.now()}`;
        const body = { agent: 'triage', message: 'My teapot of order 42 arrived broken.' };
        const send = () => call('POST', `/v1/conversations/${id}/messages`, { token: TOKENS.ops, body });

        const first = await send();
        expect(first.status).toBe(202);
        const key = first.headers.get('idempotency-key')!;
        const follow = `/v1/conversations/${id}/messages/${encodeURIComponent(key)}`;
        expect(first.headers.get('location')).toBe(follow);
        expect(first.body).toEqual({ status: 'answering', idempotencyKey: key, turn: 1, follow });

        // As a client following a timeout's advice would: the same request again, without a key.
        const retried = await send();
        expect([retried.status, retried.headers.get('idempotency-key')]).toEqual([202, key]);
        expect(await turnsOf(call, id)).toHaveLength(1);
        const waiting = await call('GET', follow, { token: TOKENS.viewer });
        expect([waiting.status, waiting.body.status, waiting.headers.get('retry-after')]).toEqual([
          202,
          'answering',
          '1',
        ]);

        const pending = await pendingOf(call, id);
        expect(
          (
            await call('POST', `/v1/runs/${id}/approvals/${pending.handoffId}`, {
              token: TOKENS.alice,
              body: { decision: 'approve' },
            })
          ).status,
        ).toBe(200);
        const replied = await call('GET', `${follow}?wait=20`, { token: TOKENS.viewer });
        expect(replied.status).toBe(200);
        expect(replied.body).toMatchObject({
          turn: 1,
          output: 'Refunded order 42.',
          agent: 'refunds',
          idempotencyKey: key,
        });

        // Once answered, the same text is a new message: the conversation's next turn.
        const again = await send();
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ turn: 2, output: 'Anything else?' });
        expect(again.headers.get('idempotency-key')).not.toBe(key);
        expect((await turnsOf(call, id)).map((t) => t.message)).toEqual([body.message, body.message]);
        expect(
          (await call('GET', `/v1/conversations/${id}/messages/no-such-key`, { token: TOKENS.viewer })).status,
        ).toBe(404);
      },
      { service: { replyWaitMs: 1_500 } },
    );
  });

  it('answers 503 with the key when no worker takes the message in time; sent again, it is one turn once a worker comes', async () => {
    const later = `later-${Date.now()}`;
    await withService(
      server.env,
      team(),
      async ({ call }) => {
        const id = `away-${Date.now()}`;
        const body = { agent: 'refunds', message: 'Hello?' };
        const first = await call('POST', `/v1/conversations/${id}/messages`, { token: TOKENS.ops, body });
        expect(first.status).toBe(503);
        const key = first.headers.get('idempotency-key')!;
        expect(first.body.detail).toContain(`send it again with the header Idempotency-Key: ${key}`);
        await withWorker(
          server.env,
          team(),
          async () => {
            const again = await call('POST', `/v1/conversations/${id}/messages`, { token: TOKENS.ops, body });
            expect([again.status, again.headers.get('idempotency-key')]).toEqual([200, key]);
            expect(again.body).toMatchObject({ turn: 1, output: 'Refunded order 42.' });
            expect(await turnsOf(call, id)).toHaveLength(1);
          },
          { taskQueue: later },
        );
      },
      {
        service: { temporalTimeoutMs: 1_000 },
        baton: () => new Baton({ client: server.env.client, taskQueue: later }),
      },
    );
  });

  it('starts one chain for a start sent again without a key, and a new one for the same start after the window', async () => {
    await withService(
      server.env,
      team(),
      async ({ call }) => {
        const start = (input: string) =>
          call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'refunds', input } });
        const input = `hello ${Date.now()}`;
        const first = await start(input);
        expect(first.status).toBe(201);
        const retried = await start(input);
        expect(retried.status).toBe(200);
        expect(retried.body).toEqual({ ...first.body, created: false });
        const other = await start(`${input}!`);
        expect(other.status).toBe(201);
        expect(other.body.workflowId).not.toBe(first.body.workflowId);
        // Two windows later the same start is a chain of its own.
        await new Promise((r) => setTimeout(r, 4_500));
        const later = await start(input);
        expect(later.status).toBe(201);
        expect(later.body.workflowId).not.toBe(first.body.workflowId);
      },
      { service: { idempotencyWindowMs: 2_000 } },
    );
  });
});
