/** The team as an A2A agent: the official `@a2a-js/sdk` client through `baton serve`, on a real Temporal server and worker. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import { pushSignature } from '../../src/server/a2a/push';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** The official client, calling the service with `token`. */
async function a2aClient(url: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${token}` },
    });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(url);
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function send(message: Message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

function asTask(result: Message | Task): Task {
  expect('status' in result).toBe(true);
  return result as Task;
}

function textOf(task: Task, artifactId = 'answer'): string | undefined {
  const part = task.artifacts.find((a) => a.artifactId === artifactId)?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const item of stream) all.push(item);
  return all;
}

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
      const first = asTask(
        await ops.sendMessage({
          ...send(message),
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
        }),
      );
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
      await expect(ops.sendMessage(send(userMessage('approve', { taskId: task.id })))).rejects.toThrow(/403/);
      const bob = await a2aClient(service.url, TOKENS.bob);
      await expect(bob.sendMessage(send(userMessage('approve', { taskId: task.id })))).rejects.toThrow(
        /bob may not decide this handoff/,
      );
      expect((await bob.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const alice = await a2aClient(service.url, TOKENS.alice);
      await expect(alice.sendMessage(send(userMessage('maybe later', { taskId: task.id })))).rejects.toThrow(
        /reply "approve" or "reject"/,
      );
      const done = asTask(
        await alice.sendMessage(send(userMessage('approve: the photos show the damage', { taskId: task.id }))),
      );
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(done)).toBe('Refunded order 42.');
      const audit = await baton.audit(task.id);
      expect(audit.events.filter((e) => e.kind === 'approval_decided')).toEqual([
        expect.objectContaining({ outcome: 'approved', approver: 'alice', comment: 'the photos show the damage' }),
      ]);
      // A task that ended takes no more replies.
      await expect(alice.sendMessage(send(userMessage('approve', { taskId: task.id })))).rejects.toThrow(/has ended/);
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
      await expect(alice.sendMessage(send(userMessage('approve', { taskId: task.id })))).rejects.toThrow(/signature/);
      expect((await alice.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    });
  });

  it('streams a chain: the task, its text once per model call, the status to input-required; the streamed reply continues it to the answer', async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const ops = await a2aClient(service.url, TOKENS.ops);
      const first = await collect(ops.sendMessageStream(send(userMessage('Order 42 is broken.'))));
      expect(first[0]!.payload?.$case).toBe('task');
      const taskId = (first[0]!.payload!.value as Task).id;
      const last = first.at(-1)!.payload!;
      expect(last.$case).toBe('statusUpdate');
      expect((last.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const alice = await a2aClient(service.url, TOKENS.alice);
      const second = await collect(alice.sendMessageStream(send(userMessage('approve', { taskId }))));
      const states = second
        .filter((s) => s.payload?.$case === 'statusUpdate')
        .map((s) => (s.payload!.value as { status: { state: TaskState } }).status.state);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      // The text of each model call, put together from its updates, is its answer; none is sent twice across the two streams.
      const texts = new Map<string, string>();
      for (const s of [...first, ...second]) {
        if (s.payload?.$case !== 'artifactUpdate') continue;
        const { artifact, append } = s.payload.value;
        const piece = artifact!.parts[0]!.content as { value: string };
        texts.set(artifact!.artifactId, append ? (texts.get(artifact!.artifactId) ?? '') + piece.value : piece.value);
      }
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
      const end = rest.at(-1)!.payload!;
      expect(end.$case).toBe('statusUpdate');
      expect((end.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  it('a message in a context is a message to the conversation of that id: turns continue it, a resent message is one turn, a turn waiting for approval is input-required and decided by its approver only', async () => {
    const team = new Team([
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
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withService(server.env, team, async ({ service, call }) => {
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
      await expect(bob.sendMessage(send(userMessage('approve', { taskId: refund.id })))).rejects.toThrow(
        /bob may not decide this handoff/,
      );
      expect((await bob.getTask({ tenant: '', id: refund.id })).status?.state).toBe(
        TaskState.TASK_STATE_INPUT_REQUIRED,
      );
      const alice = await a2aClient(service.url, TOKENS.alice);
      const approved = asTask(
        await alice.sendMessage(send(userMessage('approve: order 42 qualifies', { taskId: refund.id }))),
      );
      expect([approved.status?.state, textOf(approved)]).toEqual([
        TaskState.TASK_STATE_COMPLETED,
        'Refund for order 42 is done.',
      ]);
      await expect(alice.sendMessage(send(userMessage('approve', { taskId: refund.id })))).rejects.toThrow(/has ended/);

      // Streamed, the next turn goes to the conversation's active agent.
      const streamed = await collect(ops.sendMessageStream(send(userMessage('thanks', { contextId }))));
      // The answer comes once: in the task when the turn was answered before the stream began, else as an artifact update.
      const answer = streamed.flatMap((s) =>
        s.payload?.$case === 'artifactUpdate'
          ? [s.payload.value.artifact!]
          : s.payload?.$case === 'task'
            ? s.payload.value.artifacts
            : [],
      );
      expect(answer.map((a) => [a.artifactId, a.parts[0]!.content])).toEqual([
        ['answer', expect.objectContaining({ value: 'You are welcome.' })],
      ]);
      expect((streamed.at(-1)!.payload!.value as { status: { state: TaskState } }).status.state).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );

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

  it("delivers push notifications as signed webhooks each time a task's state changes, to a receiver the caller registered", async () => {
    const received: { body: string; signature: string; token: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({
          body,
          signature: String(req.headers['x-baton-signature']),
          token: String(req.headers['x-a2a-notification-token']),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const secret = `hook-secret-${randomUUID()}`;
    try {
      await withService(server.env, refundTeam(), async ({ service }) => {
        const ops = await a2aClient(service.url, TOKENS.ops);
        expect((await ops.getAgentCard()).capabilities?.pushNotifications).toBe(true);
        const task = asTask(
          await ops.sendMessage({
            ...send(userMessage('Order 42 is broken.')),
            configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
          }),
        );
        await expect(
          ops.createTaskPushNotificationConfig({
            tenant: '',
            id: '',
            taskId: task.id,
            url,
            token: 'short',
            authentication: undefined,
          }),
        ).rejects.toThrow(/"token" must be 16 to 512 characters/);
        await expect(
          ops.createTaskPushNotificationConfig({
            tenant: '',
            id: '',
            taskId: task.id,
            url: 'file:///etc/passwd',
            token: secret,
            authentication: undefined,
          }),
        ).rejects.toThrow(/"url" must be an http\(s\) URL/);
        await expect(
          ops.createTaskPushNotificationConfig({
            tenant: '',
            id: '',
            taskId: 'no-such-chain',
            url,
            token: secret,
            authentication: undefined,
          }),
        ).rejects.toThrow(/no task no-such-chain/);
        const config = await ops.createTaskPushNotificationConfig({
          tenant: '',
          id: '',
          taskId: task.id,
          url,
          token: secret,
          authentication: undefined,
        });
        expect(config.id).not.toBe('');
        expect(await ops.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id })).toMatchObject({
          url,
          taskId: task.id,
        });
        const viewer = await a2aClient(service.url, TOKENS.viewer);
        await expect(
          viewer.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id }),
        ).rejects.toThrow(/no push notification config/);

        const states = () =>
          received.map((r) => {
            const [t, sig] = r.signature.split(',').map((kv) => kv.split('=')[1]!);
            expect(sig).toBe(pushSignature(secret, Number(t), r.body));
            expect(sig).not.toBe(pushSignature('another-secret-value', Number(t), r.body));
            const json = JSON.parse(r.body) as {
              task: { id: string; status: { state: string }; artifacts?: { parts: { text?: string }[] }[] };
            };
            expect(json.task.id).toBe(task.id);
            return json.task.status.state;
          });
        await waitFor(
          () => Promise.resolve(states()),
          (s) => s.includes('TASK_STATE_INPUT_REQUIRED'),
        );
        const alice = await a2aClient(service.url, TOKENS.alice);
        await alice.sendMessage(send(userMessage('approve', { taskId: task.id })));
        await waitFor(
          () => Promise.resolve(states()),
          (s) => s.at(-1) === 'TASK_STATE_COMPLETED',
        );
        const done = JSON.parse(received.at(-1)!.body) as {
          task: { artifacts: { artifactId: string; parts: { text?: string }[] }[] };
        };
        expect(done.task.artifacts.find((a) => a.artifactId === 'answer')?.parts[0]?.text).toBe('Refunded order 42.');
        // Each state once, in order.
        expect(states().filter((s) => s === 'TASK_STATE_COMPLETED')).toHaveLength(1);
        expect(states().indexOf('TASK_STATE_INPUT_REQUIRED')).toBeLessThan(states().indexOf('TASK_STATE_COMPLETED'));
      });
    } finally {
      receiver.close();
    }
  });
});
