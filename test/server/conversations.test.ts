/** Conversations over HTTP and A2A: the first message starts one, the active agent stays, a resent key or message gets the first reply. */
import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import {
  a2aClient,
  artifactsOf,
  asTask,
  collect,
  reply,
  send,
  sendAtOnce,
  stateOf,
  taskState,
  textOf,
  userMessage,
} from './a2aClient';
import { TOKENS, withService } from './service';

const server = useTemporalServer();

/** triage greets, then hands off to refunds, who refunds and then says you are welcome; `approvers` must approve the handoff. */
const team = ({ approvers }: { approvers?: string[] } = {}) =>
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
      ...(approvers ? { approval: { approvers } } : {}),
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
  it('answer a streamed message that is refused with its problem at once: to a chain, blank, to an ended conversation', async () => {
    await withService(server.env, team(), async ({ service, baton, call }) => {
      const streamed = (id: string, message: string) =>
        fetch(`${service.url}/v1/conversations/${id}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKENS.ops}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'triage', message, stream: true }),
          signal: AbortSignal.timeout(15_000),
        }).then(async (res) => [res.status, res.headers.get('content-type'), await res.json()] as const);

      const chain = await baton.start('triage', 'hi');
      await chain.result();
      const [status, type, body] = await streamed(chain.workflowId, 'hello');
      expect([status, type]).toEqual([409, 'application/problem+json']);
      expect((body as { detail: string }).detail).toMatch(/not a conversation/);

      const id = `http-chat-${Date.now()}`;
      expect(
        (
          await call('POST', `/v1/conversations/${id}/messages`, {
            token: TOKENS.ops,
            body: { agent: 'triage', message: 'hi' },
          })
        ).status,
      ).toBe(200);
      const [blank] = await streamed(id, ' ');
      expect(blank).toBe(400);
      expect((await call('POST', `/v1/conversations/${id}/end`, { token: TOKENS.ops })).status).toBe(200);
      const [late, , ended] = await streamed(id, 'one more');
      expect(late).toBe(409);
      expect(JSON.stringify(ended)).toMatch(/has ended|is ending/);
    });
  });
});

describe('conversations over A2A', () => {
  it('a message in a context is a message to the conversation of that id: turns continue it, a resent message is one turn, a turn waiting for approval is input-required and decided by its approver only', async () => {
    await withService(server.env, team({ approvers: ['alice'] }), async ({ service, call }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const contextId = `chat-${randomUUID()}`;
      const hello = userMessage('hi', { contextId });
      const first = asTask(await ops.sendMessage(send(hello)));
      expect([first.contextId, first.status?.state, textOf(first)]).toEqual([
        contextId,
        TaskState.TASK_STATE_COMPLETED,
        'Hello from triage.',
      ]);
      // The same message sent again is the same turn, answered once.
      const again = asTask(await ops.sendMessage(send(hello)));
      expect([again.id, textOf(again)]).toEqual([first.id, 'Hello from triage.']);

      const refund = asTask(await ops.sendMessage(send(userMessage('I want a refund for order 42', { contextId }))));
      expect(refund.id).not.toBe(first.id);
      expect(refund.contextId).toBe(contextId);
      expect(refund.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(refund.status!.message!.parts[0]!.content).toMatchObject({
        value: expect.stringContaining('triage asks to hand off to refunds'),
      });
      const bob = await a2aClient(service.url, TOKENS.bob);
      await expect(bob.sendMessage(reply(refund.id, 'approve'))).rejects.toThrow(/bob may not decide this handoff/);
      expect(await taskState(bob, refund.id)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const alice = await a2aClient(service.url, TOKENS.alice);
      const approved = asTask(await alice.sendMessage(reply(refund.id, 'approve: order 42 qualifies')));
      expect([approved.status?.state, textOf(approved)]).toEqual([
        TaskState.TASK_STATE_COMPLETED,
        'Refund for order 42 is done.',
      ]);
      await expect(alice.sendMessage(reply(refund.id, 'approve'))).rejects.toThrow(/has ended/);

      // Streamed, the next turn goes to the conversation's active agent.
      const streamed = await collect(ops.sendMessageStream(send(userMessage('thanks', { contextId }))));
      // The answer comes once: in the task when the turn was answered before the stream began, else as an artifact update.
      expect(artifactsOf(streamed).map((a) => [a.artifactId, a.parts[0]!.content])).toEqual([
        ['answer', expect.objectContaining({ value: 'You are welcome.' })],
      ]);
      expect(stateOf(streamed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);

      const view = await call('GET', `/v1/conversations/${contextId}`, { token: TOKENS.viewer });
      expect(
        (view.body as { turns: { message?: string; agent: string }[] }).turns.map((t) => [t.message, t.agent]),
      ).toEqual([
        ['hi', 'triage'],
        ['I want a refund for order 42', 'refunds'],
        ['thanks', 'refunds'],
      ]);
      // A context that names a chain is not a conversation.
      const chain = asTask(await ops.sendMessage(send(userMessage('hi'))));
      await expect(ops.sendMessage(send(userMessage('more', { contextId: chain.id })))).rejects.toThrow(
        /is a handoffRun workflow, not a conversation/,
      );
      await expect(ops.getTask({ tenant: '', id: `turn:a2a-${'0'.repeat(32)}:${contextId}` })).rejects.toThrow(
        /remembers no such message/,
      );
    });
  });

  it('a reply to a turn still being answered is refused: it waits for no input', async () => {
    const slow = new Team([scriptedAgent('triage', [{ text: 'Hello, slowly.', delayMs: 4000 }])]);
    await withService(server.env, slow, async ({ service }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const turn = asTask(await ops.sendMessage(sendAtOnce(userMessage('hi', { contextId: `chat-${randomUUID()}` }))));
      const alice = await a2aClient(service.url, TOKENS.alice);
      await expect(alice.sendMessage(reply(turn.id, 'approve'))).rejects.toThrow(/waits for no input/);
      await waitFor(
        () => taskState(ops, turn.id),
        (state) => state === TaskState.TASK_STATE_COMPLETED,
      );
    });
  });
});
