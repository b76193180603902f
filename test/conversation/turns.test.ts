import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { InvalidRunInputError, scripted, Team } from '../../src';
import {
  AgentNotFoundError,
  ConversationEndedError,
  endConversationUpdate,
  sendMessageUpdate,
  WorkflowType,
  type ConversationReply,
} from '../../src/workflow';
import { MaxTurnsExceededError } from '../../src/economics';
import { scriptedAgent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { defineEcho, refusal, runFailureType, sendWithStart, supportTeam } from './turns.fixtures';

const server = useTemporalServer();

describe('conversation turns', () => {
  it('answers five messages, hands off on turns 2 and 4, and keeps the active agent between messages', async () => {
    const recording = recordingScripted();
    const { replies, history, view, audit } = await withWorker(
      server.env,
      supportTeam(),
      async (baton) => {
        const chat = baton.conversation('triage');
        const replies: ConversationReply[] = [];
        for (const message of ['hi', 'refund order 42', 'when?', 'and an upgrade', 'thanks'])
          replies.push(await chat.send(message));
        return { replies, history: await chat.history(), view: await chat.status(), audit: await chat.audit() };
      },
      { providers: recording.providers },
    );
    expect(replies.map((r) => [r.turn, r.agent, r.output])).toEqual([
      [1, 'triage', 'Hello, how can I help?'],
      [2, 'refunds', 'Refund for 42 started.'],
      [3, 'refunds', 'It is on its way.'],
      [4, 'sales', 'Upgrade ready.'],
      [5, 'sales', 'Goodbye!'],
    ]);
    expect(replies.map((r) => r.handoffs.map((h) => `${h.from}→${h.to}`))).toEqual([
      [],
      ['triage→refunds'],
      [],
      ['refunds→sales'],
      [],
    ]);
    // Turn 3 goes to refunds, who sees its own conversation so far and the new message.
    const turn3 = recording.calls.filter((c) => c.agentId === 'refunds')[1]!;
    expect(turn3.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are refunds.'],
      ['user', 'customer wants a refund'],
      ['assistant', 'Refund for 42 started.'],
      ['user', 'when?'],
    ]);
    expect(recording.calls.map((c) => c.callIndex)).toEqual([0, 1, 0, 1, 2, 0, 1]);
    expect(view).toMatchObject({ status: 'idle', activeAgent: 'sales', turns: 5, queued: 0, handoffs: 2, runs: 1 });
    expect(view.usage.modelCalls).toBe(7);
    expect(history.map((t) => [t.turn, t.message, t.agent, t.output])).toEqual([
      [1, 'hi', 'triage', 'Hello, how can I help?'],
      [2, 'refund order 42', 'refunds', 'Refund for 42 started.'],
      [3, 'when?', 'refunds', 'It is on its way.'],
      [4, 'and an upgrade', 'sales', 'Upgrade ready.'],
      [5, 'thanks', 'sales', 'Goodbye!'],
    ]);
    expect(audit.turns.map((t) => [t.agent, t.answeredBy, t.modelCalls, t.handoffs.length])).toEqual([
      ['triage', 'triage', 1, 0],
      ['triage', 'refunds', 2, 1],
      ['refunds', 'refunds', 1, 0],
      ['refunds', 'sales', 2, 1],
      ['sales', 'sales', 1, 0],
    ]);
  });

  it('returns the first reply to a resent idempotency key without running the turn again', async () => {
    const recording = recordingScripted();
    const team = new Team([scriptedAgent('solo', [{ text: 'first answer' }, { text: 'second answer' }])]);
    await withWorker(
      server.env,
      team,
      async (baton) => {
        const chat = baton.conversation('solo');
        const first = await chat.send('hello', { idempotencyKey: 'msg-1' });
        const again = await chat.send('hello (resent)', { idempotencyKey: 'msg-1' });
        expect(again).toEqual(first);
        expect(recording.calls).toHaveLength(1);
        const next = await chat.send('next', { idempotencyKey: 'msg-2' });
        expect(next).toMatchObject({ turn: 2, output: 'second answer' });
        expect((await chat.status()).turns).toBe(2);
        expect((await chat.history()).map((t) => t.message)).toEqual(['hello', 'next']);
      },
      { providers: recording.providers },
    );
    expect(recording.calls).toHaveLength(2);
  });

  it('starts and sends in one call from a plain Temporal client (update-with-start), then goes on with the same id', async () => {
    const team = new Team([scriptedAgent('solo', [{ text: 'started and answered' }, { text: 'still here' }])]);
    await withWorker(server.env, team, async (baton, queue) => {
      const client = new Client({ connection: server.env.connection });
      const workflowId = `plain-${queue}`;
      const send = (message: string) => sendWithStart(client, { workflowId, taskQueue: queue, message });
      expect(await send('hello')).toMatchObject({
        turn: 1,
        output: 'started and answered',
        agent: 'solo',
        handoffs: [],
        idempotencyKey: '#1',
      });
      expect(await send('again')).toMatchObject({ turn: 2, output: 'still here' });
      const runs = [];
      for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf.type);
      expect(runs).toEqual([WorkflowType.CONVERSATION]);
      expect(await baton.conversation('solo', { id: workflowId }).end()).toMatchObject({
        endedBy: 'requested',
        turns: 2,
        agent: 'solo',
      });
    });
  });

  it('answers messages sent at once in the order they arrived', async () => {
    const team = new Team([defineEcho()]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('echo');
      const replies = await Promise.all(
        ['one', 'two', 'three', 'four'].map((m, i) => chat.send(m, { idempotencyKey: `k${i}` })),
      );
      expect(replies.map((r) => r.output)).toEqual(replies.map((r) => `echo ${r.turn}`));
      const history = await chat.history();
      expect(history.map((t) => t.turn)).toEqual([1, 2, 3, 4]);
      // Each turn answers its own message, whatever order they were taken in.
      for (const r of replies)
        expect(history[r.turn - 1]?.message).toBe(['one', 'two', 'three', 'four'][Number(r.idempotencyKey.slice(1))]);
    });
  });

  it('fails a turn with its typed error and goes on as before it; an ended conversation takes no more messages, and answers one it answered sent again with its key', async () => {
    const team = new Team([
      scriptedAgent('solo', [
        { text: 'fine' },
        { toolCalls: [{ name: 'nothing', arguments: {} }] },
        { toolCalls: [{ name: 'nothing', arguments: {} }] },
        { text: 'back again' },
      ]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('solo', { options: { maxTurns: 2 } });
      const first = await chat.send('one', { idempotencyKey: 'first' });
      const failed = await chat.send('loop').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(MaxTurnsExceededError);
      expect(await chat.send('three')).toMatchObject({ turn: 3, output: 'back again' });
      await expect(chat.send('   ')).rejects.toBeInstanceOf(InvalidRunInputError);
      const history = await chat.history();
      expect(history.map((t) => t.failure?.type)).toEqual([undefined, 'MaxTurnsExceededError', undefined]);
      expect(await chat.end()).toMatchObject({ endedBy: 'requested', turns: 3 });
      await expect(chat.send('too late')).rejects.toBeInstanceOf(ConversationEndedError);
      // A caller that retries a message it sent (its key) is answered as the conversation answered it, ended or not.
      expect(await chat.send('one', { idempotencyKey: 'first' })).toEqual(first);
      await expect(chat.send('too late', { idempotencyKey: 'never-sent' })).rejects.toBeInstanceOf(
        ConversationEndedError,
      );
    });
  });

  it('refuses a malformed message in the update’s validator, a start whose input is not one, and names an agent the team lacks', async () => {
    const team = new Team([
      scriptedAgent('solo', [], { model: scripted({ steps: [{ text: 'hello' }], requireAllSteps: false }) }),
    ]);
    await withWorker(server.env, team, async (baton, queue) => {
      const client = new Client({ connection: server.env.connection });
      const chat = baton.conversation('solo');
      await chat.send('hi');
      const send = (body: unknown) =>
        refusal(client.workflow.getHandle(chat.id).executeUpdate(sendMessageUpdate, { args: [body as never] }));
      expect(await send({})).toBe('InvalidRunInputError: Invalid run input: "sendMessage.message" is missing');
      expect(await send({ message: '' })).toBe(
        'InvalidRunInputError: Invalid run input: "sendMessage.message" must be a non-empty string, got ""',
      );
      expect(await send({ message: 'hi', idempotencyKey: 5 })).toBe(
        'InvalidRunInputError: Invalid run input: "sendMessage.idempotencyKey" must be a non-empty string, got 5',
      );
      expect(await send({ message: 'hi', idempotencyKey: 'k'.repeat(257) })).toBe(
        'InputTooLargeError: Input too large: "sendMessage.idempotencyKey" is 257 characters; the limit is 256',
      );
      expect(await send('hi')).toBe(
        'InvalidRunInputError: Invalid run input: a message must be an object {"message": string, "idempotencyKey"?: string}, got "hi"',
      );
      expect(await send({ message: 'hi', text: 'hi' })).toBe(
        'InvalidRunInputError: Invalid run input: "sendMessage" has unknown field(s) "text" (valid: message, idempotencyKey, midTurn)',
      );
      // A refused update leaves nothing behind: the conversation took none of them.
      expect(await chat.status()).toMatchObject({ status: 'idle', turns: 1, queued: 0 });

      const startWith = (workflowId: string, input: unknown) =>
        sendWithStart(client, { workflowId, taskQueue: queue, message: 'hi', input });
      const badInput = `bad-input-${queue}`;
      expect(await refusal(startWith(badInput, { agent: 'solo', conversation: { idleTimeout: 'soon' } }))).toBe(
        'InvalidRunInputError: Invalid run input: "conversation.idleTimeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got "soon"',
      );
      expect(await runFailureType(client, badInput)).toBe('InvalidRunInputError');

      const ghost = await baton
        .conversation('ghost')
        .send('hi')
        .catch((e: unknown) => e);
      expect(ghost).toBeInstanceOf(AgentNotFoundError);
      expect(ghost).toMatchObject({
        agent: 'ghost',
        available: ['solo'],
        message: 'Agent "ghost" is not registered. Available: solo',
      });
      // A plain client learns it from the run: the update was taken before the run failed.
      const plainGhost = `ghost-${queue}`;
      expect(await refusal(startWith(plainGhost, { agent: 'ghost' }))).toMatch(/^AcceptedUpdateCompletedWorkflow: /);
      expect(await runFailureType(client, plainGhost)).toBe('AgentNotFoundError');
    });
  });

  it('takes no more messages once ending or ended: ConversationEndedError from baton, Temporal’s own errors from a plain client', async () => {
    const team = new Team([
      scriptedAgent('solo', [], {
        model: scripted({ steps: [{ text: 'slow answer', delayMs: 2000 }, { text: 'again' }], requireAllSteps: false }),
      }),
    ]);
    await withWorker(server.env, team, async (baton, queue) => {
      const chat = baton.conversation('solo');
      const first = chat.send('take your time');
      await waitFor(
        () => chat.status().catch(() => undefined),
        (v) => v?.status === 'answering',
      );
      const ending = await chat.handle.startUpdate(endConversationUpdate, {
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      const whileEnding = await chat.send('one more thing').catch((e: unknown) => e);
      expect(whileEnding).toBeInstanceOf(ConversationEndedError);
      expect((whileEnding as Error).message).toBe(`Conversation ${chat.id} is ending: it takes no more messages`);
      expect(await first).toMatchObject({ turn: 1, output: 'slow answer' });
      expect(await ending.result()).toMatchObject({ endedBy: 'requested', turns: 1 });

      const ended = await chat.send('too late').catch((e: unknown) => e);
      expect(ended).toBeInstanceOf(ConversationEndedError);
      expect((ended as Error).message).toBe(`Conversation ${chat.id} has ended: it takes no more messages`);
      const client = new Client({ connection: server.env.connection });
      const plain = await client.workflow
        .getHandle(chat.id)
        .executeUpdate(sendMessageUpdate, { args: [{ message: 'too late' }] })
        .catch((e: unknown) => e);
      expect(plain).toBeInstanceOf(WorkflowNotFoundError);
      expect((plain as Error).message).toBe('workflow execution already completed');
      const start = (workflowIdReusePolicy?: 'REJECT_DUPLICATE') =>
        sendWithStart(client, { workflowId: chat.id, taskQueue: queue, message: 'too late', workflowIdReusePolicy });
      await expect(start('REJECT_DUPLICATE')).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      // Temporal's default reuse policy lets update-with-start begin a new conversation under the ended one's id.
      expect(await start()).toMatchObject({ turn: 1 });
    });
  });

  it('ends after its idle timeout, on a durable timer', async () => {
    const team = new Team([scriptedAgent('solo', [{ text: 'hi' }])]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('solo', { conversation: { idleTimeout: '2 seconds' } });
      const sentAt = Date.now();
      await chat.send('hello');
      const result = await chat.result();
      expect(result).toMatchObject({ endedBy: 'idle_timeout', turns: 1, agent: 'solo', runs: 1 });
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2000);
      const audit = await waitFor(
        () => chat.audit(),
        (a) => a.status === 'completed',
      );
      expect(audit.result?.endedBy).toBe('idle_timeout');
      await expect(chat.send('anyone?')).rejects.toBeInstanceOf(ConversationEndedError);
    });
  });
});
