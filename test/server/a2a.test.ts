/** The team as an A2A agent: the official `@a2a-js/sdk` client through `baton serve`, on a real Temporal server and worker. */
import { randomUUID } from 'node:crypto';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, scripted, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import {
  a2aClient,
  asTask,
  collect,
  pushConfig,
  reply,
  send,
  sendAtOnce,
  stateOf,
  streamedTexts,
  taskState,
  textOf,
  userMessage,
} from './a2aClient';
import { pushedAnswer, pushedStates, startPushReceiver } from './a2aPushReceiver';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();

describe('a team as an A2A agent', () => {
  it('serves an Agent Card naming its agents as skills and the bearer tokens it requires; calls without a token are refused', async () => {
    const team = new Team([
      scriptedAgent('helper', [{ text: 'hi' }], { description: 'Answers questions about orders' }),
      scriptedAgent('refunds', [{ text: 'ok' }]),
    ]);
    await withService(
      server.env,
      team,
      async ({ service }) => {
        const client = await a2aClient(service.url, TOKENS.ops);
        const card = await client.getAgentCard();
        expect(card.skills.map((s) => [s.id, s.description])).toEqual([
          ['helper', 'Answers questions about orders'],
          ['refunds', 'refunds'],
        ]);
        expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
        expect(card.supportedInterfaces[0]).toMatchObject({
          url: `${service.url}/a2a`,
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
        });
        const anonymous = await fetch(`${service.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
        });
        expect(anonymous.status).toBe(401);
      },
      { service: { a2a: { team } } },
    );
  });

  it("takes a message sent again (the same sender, the same messageId) as the same task: one chain; the id with another text is refused, another sender's is a task of its own", async () => {
    const team = new Team([scriptedAgent('helper', [{ text: 'Order 42 ships today.', delayMs: 300 }])]);
    await withService(server.env, team, async ({ service, baton, queue }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const message = userMessage('Where is order 42?');
      const first = asTask(await ops.sendMessage(sendAtOnce(message)));
      const again = asTask(await ops.sendMessage(send(message)));
      expect(again.id).toBe(first.id);
      expect(again.contextId).toBe(first.id);
      expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(again)).toBe('Order 42 ships today.');
      const chains: string[] = [];
      for await (const wf of baton.client.workflow.list({
        query: `TaskQueue = "${queue}" AND WorkflowType = "handoffRun"`,
      }))
        chains.push(wf.workflowId);
      expect(chains).toEqual([first.id]);

      await expect(ops.sendMessage(send({ ...message, parts: userMessage('Cancel order 42.').parts }))).rejects.toThrow(
        /messageId started a chain with a different request/,
      );
      const admin = await a2aClient(service.url, TOKENS.admin);
      const other = asTask(await admin.sendMessage(send(message)));
      expect(other.id).not.toBe(first.id);
      expect(textOf(other)).toBe('Order 42 ships today.');
    });
  });

  it("a message starts a chain whose approval is an input-required task; an unauthorised reply is refused, an approver's reply decides it", async () => {
    await withService(server.env, refundTeam(), async ({ service, baton }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const task = asTask(await ops.sendMessage(send(userMessage('My order 42 arrived broken.'))));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(task.contextId).toBe(task.id);
      const asked = task.status!.message!;
      expect(asked.parts[0]!.content).toMatchObject({
        $case: 'text',
        value: expect.stringContaining('triage asks to hand off to refunds'),
      });
      const approvals = (
        asked.parts[1]!.content as { value: { approvals: { handoffId: string; approvers: string[] }[] } }
      ).value.approvals;
      expect(approvals).toHaveLength(1);
      expect(approvals[0]!.approvers).toEqual(['alice']);

      // A starter may not decide; an approver the policy does not name may not either. The chain still waits.
      await expect(ops.sendMessage(reply(task.id, 'approve'))).rejects.toThrow(/403/);
      const bob = await a2aClient(service.url, TOKENS.bob);
      await expect(bob.sendMessage(reply(task.id, 'approve'))).rejects.toThrow(/bob may not decide this handoff/);
      expect(await taskState(bob, task.id)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const alice = await a2aClient(service.url, TOKENS.alice);
      await expect(alice.sendMessage(reply(task.id, 'maybe later'))).rejects.toThrow(/reply "approve" or "reject"/);
      const done = asTask(await alice.sendMessage(reply(task.id, 'approve: the photos show the damage')));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(done)).toBe('Refunded order 42.');
      const audit = await baton.audit(task.id);
      expect(audit.events.filter((e) => e.kind === 'approval_decided')).toEqual([
        expect.objectContaining({ outcome: 'approved', approver: 'alice', comment: 'the photos show the damage' }),
      ]);
      // A task that ended takes no more replies.
      await expect(alice.sendMessage(reply(task.id, 'approve'))).rejects.toThrow(/has ended/);
    });
  });

  it('a decision that must be signed is an auth-required task; an unsigned reply is refused and the chain still waits', async () => {
    const team = new Team([
      scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'Refund order 42.' } }]),
      scriptedAgent('refunds', [{ text: 'Refunded.' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ]);
    await withService(server.env, team, async ({ service }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const task = asTask(await ops.sendMessage(send(userMessage('Order 42 is broken.'))));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
      expect(task.status!.message!.parts[0]!.content).toMatchObject({
        value: expect.stringContaining('the decision must be signed'),
      });
      const alice = await a2aClient(service.url, TOKENS.alice);
      await expect(alice.sendMessage(reply(task.id, 'approve'))).rejects.toThrow(/signature/);
      expect(await taskState(alice, task.id)).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    });
  });

  it('streams a chain: the task, its text once per model call, the status to input-required; the streamed reply continues it to the answer', async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const first = await collect(ops.sendMessageStream(send(userMessage('Order 42 is broken.'))));
      expect(first[0]!.payload?.$case).toBe('task');
      const taskId = (first[0]!.payload!.value as Task).id;
      expect(first.at(-1)!.payload!.$case).toBe('statusUpdate');
      expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const alice = await a2aClient(service.url, TOKENS.alice);
      const second = await collect(alice.sendMessageStream(reply(taskId, 'approve')));
      const states = second.filter((s) => s.payload?.$case === 'statusUpdate').map(stateOf);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      // The text of each model call, put together from its updates, is its answer; none is sent twice across the two streams.
      const texts = streamedTexts([...first, ...second]);
      expect([...texts.values()]).toContain('Refunded order 42.');
      expect([...texts.values()].filter((t) => t === 'Refunded order 42.')).toHaveLength(1);
      const finalTask = await alice.getTask({ tenant: '', id: taskId });
      expect(textOf(finalTask)).toBe('Refunded order 42.');
    });
  });

  it('cancels a waiting chain (cancelled in baton, canceled in A2A), refuses to cancel it again, and resubscribes to a task until it ends', async () => {
    await withService(server.env, refundTeam(), async ({ service, baton, call }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const waiting = asTask(await ops.sendMessage(send(userMessage('Order 42 is broken.'))));
      const cancelled = await ops.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await baton.audit(waiting.id)).status).toBe('cancelled');
      await expect(ops.cancelTask({ tenant: '', id: waiting.id, metadata: undefined })).rejects.toThrow(/has ended/);
      await expect(ops.getTask({ tenant: '', id: 'no-such-chain' })).rejects.toThrow(/no task no-such-chain/);

      const other = asTask(await ops.sendMessage(send(userMessage('Order 42 is broken.'))));
      const viewer = await a2aClient(service.url, TOKENS.viewer);
      const updates = viewer.resubscribeTask({ tenant: '', id: other.id });
      const firstUpdate = await updates.next();
      expect((firstUpdate.value as StreamResponse).payload?.$case).toBe('task');
      // Decided elsewhere (the REST API): the resubscribed stream follows the chain to its end.
      const approvalId = (await baton.getRun(other.id).pendingApprovals())[0]!.handoffId;
      expect(
        (
          await call('POST', `/v1/runs/${other.id}/approvals/${approvalId}`, {
            token: TOKENS.alice,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      const rest: StreamResponse[] = [];
      for await (const s of updates) rest.push(s);
      expect(rest.at(-1)!.payload!.$case).toBe('statusUpdate');
      expect(stateOf(rest.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  it("delivers push notifications as signed webhooks each time a task's state changes, to a receiver the caller registered", async () => {
    const receiver = await startPushReceiver();
    const { url, received } = receiver;
    const secret = `hook-secret-${randomUUID()}`;
    try {
      await withService(server.env, refundTeam(), async ({ service }) => {
        const ops = await a2aClient(service.url, TOKENS.ops);
        expect((await ops.getAgentCard()).capabilities?.pushNotifications).toBe(true);
        const task = asTask(await ops.sendMessage(sendAtOnce(userMessage('Order 42 is broken.'))));
        await expect(ops.createTaskPushNotificationConfig(pushConfig(task.id, url, 'short'))).rejects.toThrow(
          /"token" must be 16 to 512 characters/,
        );
        await expect(
          ops.createTaskPushNotificationConfig(pushConfig(task.id, 'file:///etc/passwd', secret)),
        ).rejects.toThrow(/"url" must be an http\(s\) URL/);
        await expect(ops.createTaskPushNotificationConfig(pushConfig('no-such-chain', url, secret))).rejects.toThrow(
          /no task no-such-chain/,
        );
        const config = await ops.createTaskPushNotificationConfig(pushConfig(task.id, url, secret));
        expect(config.id).not.toBe('');
        expect(await ops.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id })).toMatchObject({
          url,
          taskId: task.id,
        });
        const viewer = await a2aClient(service.url, TOKENS.viewer);
        await expect(
          viewer.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id }),
        ).rejects.toThrow(/no push notification config/);

        const states = () => pushedStates(received, secret, task.id);
        await waitFor(
          () => Promise.resolve(states()),
          (s) => s.includes('TASK_STATE_INPUT_REQUIRED'),
        );
        const alice = await a2aClient(service.url, TOKENS.alice);
        await alice.sendMessage(reply(task.id, 'approve'));
        await waitFor(
          () => Promise.resolve(states()),
          (s) => s.at(-1) === 'TASK_STATE_COMPLETED',
        );
        expect(pushedAnswer(received)).toBe('Refunded order 42.');
        // Each state once, in order.
        expect(states().filter((s) => s === 'TASK_STATE_COMPLETED')).toHaveLength(1);
        expect(states().indexOf('TASK_STATE_INPUT_REQUIRED')).toBeLessThan(states().indexOf('TASK_STATE_COMPLETED'));
      });
    } finally {
      receiver.server.close();
    }
  });

  it('a reply decides an approval that waits in a specialist the chain delegated to', async () => {
    const team = new Team([
      defineAgent({
        id: 'top',
        instructions: 'Top.',
        model: scripted([
          { toolCalls: [{ name: 'delegate', arguments: { to: 'leaf', task: 'open it', reason: 'leaf knows' } }] },
          { text: 'top done' },
        ]),
        handoffs: [delegate('leaf')],
      }),
      scriptedAgent('leaf', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      scriptedAgent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'] } }),
    ]);
    await withService(server.env, team, async ({ service, baton }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const task = asTask(await ops.sendMessage(sendAtOnce(userMessage('Open the vault.'))));
      await waitFor(
        () => baton.getRun(task.id).pendingApprovals(),
        (waiting) => waiting.length > 0,
      );
      const alice = await a2aClient(service.url, TOKENS.alice);
      await alice.sendMessage(reply(task.id, 'approve'));
      expect(await baton.getRun(task.id).result()).toMatchObject({ output: 'top done' });
    });
  });
});
