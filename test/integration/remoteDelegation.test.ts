/**
 * Remote specialists: a baton team delegates to a second baton team that `baton serve` serves over
 * A2A in a process of its own, on a real Temporal server. The delegating worker is the real
 * `baton worker` in a child process, SIGKILLed in the middle of the remote task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src';
import { DelegationFailedError, REMOTE_WAITS_MEMO } from '../../src/workflow';
import { freePort } from '../../src/devserver/server';
import type { CallModelInput } from '../../src/common/model';
import { startCli, type CliProcess } from '../helpers/cli';
import { activitiesInHistory } from '../helpers/history';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { caller, STATIC_TOKENS, TOKENS } from '../server/service';
import { deskTeam } from './remote/deskTeam';

const server = useTemporalServer();
const REMOTE_TEAM = 'test/integration/remote/remoteTeam.ts';
const DESK_TEAM = 'test/integration/remote/deskTeam.ts';
const fastRetry = { initialInterval: '200 ms', maximumInterval: '1 second' };

/** The remote team's service, in a process of its own, on a task queue of its own. */
const remote: { url: string; queue: string; process?: CliProcess } = { url: '', queue: taskQueue() };

beforeAll(async () => {
  const port = await freePort();
  remote.url = `http://127.0.0.1:${port}`;
  remote.process = startCli(['serve', '--team', REMOTE_TEAM, '--port', String(port), '--task-queue', remote.queue], {
    TEMPORAL_ADDRESS: server.env.address,
    BATON_TOKENS: JSON.stringify(STATIC_TOKENS),
  });
  await remote.process.until('stdout', /served in this process/, 90_000);
}, 120_000);

afterAll(async () => {
  remote.process?.child.kill('SIGINT');
  await remote.process?.exited;
});

/** The remote team's chains, by id. */
async function remoteChains(): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of server.env.client.workflow.list({ query: `TaskQueue = "${remote.queue}"` }))
    ids.push(wf.workflowId);
  return ids;
}

/** A delegating worker: the real `baton worker` for the desk team, in a child process. */
async function deskWorker(queue: string): Promise<CliProcess> {
  const worker = startCli(['worker', '--team', DESK_TEAM, '--task-queue', queue], {
    TEMPORAL_ADDRESS: server.env.address,
    REMOTE_URL: remote.url,
    REMOTE_TOKEN: TOKENS.ops,
  });
  await worker.until('stdout', /baton worker: team/, 90_000);
  return worker;
}

async function sigkill(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

describe('remote specialists', () => {
  it("delegate over A2A: the delegating worker is SIGKILLed twice mid-task, the answer arrives once and the remote task ran once; the remote's wait is a wait, not a failure", async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const before = await remoteChains();
    let worker = await deskWorker(queue);
    try {
      const run = await baton.start('desk', 'My order 42 arrived broken.', {
        heartbeatTimeout: '1 second',
        retry: { ...fastRetry, maximumAttempts: 5 },
      });
      // Killed while the remote task works (its first model call takes 2.5 s).
      const started = await waitFor(remoteChains, (ids) => ids.length > before.length, 60_000);
      await sigkill(worker);
      worker = await deskWorker(queue);

      // The remote waits for alice: the chain records the wait and waits too, neither failed.
      const handle = server.env.client.workflow.getHandle(run.workflowId);
      const waiting = await waitFor(
        () => handle.describe(),
        (d) => (d.memo?.[REMOTE_WAITS_MEMO] as unknown[] | undefined)?.length === 1,
        60_000,
      );
      expect(waiting.status.name).toBe('RUNNING');
      expect(waiting.typedSearchAttributes.getAll().find((a) => a.key.name === 'BatonStatus')?.value).toBe(
        'awaiting_approval',
      );
      const [wait] = waiting.memo![REMOTE_WAITS_MEMO] as {
        remote: string;
        taskId: string;
        state: string;
        message: string;
      }[];
      expect(wait).toMatchObject({
        remote: 'billing',
        state: 'input-required',
        message: expect.stringContaining('billing asks to hand off to refunds'),
      });

      // Killed again while it waits; a new worker takes the wait over, and alice approves at the remote.
      await sigkill(worker);
      worker = await deskWorker(queue);
      const call = caller(remote.url);
      const approval = await waitFor(
        () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
        (a) => a.body?.approvals?.some((p: { workflowId: string }) => p.workflowId === wait!.taskId),
      );
      const handoffId = approval.body.approvals.find(
        (p: { workflowId: string }) => p.workflowId === wait!.taskId,
      ).handoffId;
      expect(
        (
          await call('POST', `/v1/runs/${encodeURIComponent(wait!.taskId)}/approvals/${handoffId}`, {
            token: TOKENS.alice,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);

      const result = await run.result();
      expect(result.output).toBe('Billing refunded order 42.');

      // The remote task ran once: one chain on the remote team, the one the wait named.
      const after = (await remoteChains()).filter((id) => !before.includes(id));
      expect(after).toEqual([wait!.taskId]);
      expect(started.filter((id) => !before.includes(id))).toEqual([wait!.taskId]);
      // The answer came back once, as the delegation's result, to desk's next model call.
      const activities = await activitiesInHistory(handle);
      const models = activities.filter((a) => a.name === 'callModel').map((a) => a.input as CallModelInput);
      expect(models).toHaveLength(2);
      const answers = models[1]!.messages.filter(
        (m) => m.role === 'tool' && String(m.content).startsWith('Answer from billing'),
      );
      expect(answers.map((m) => m.content)).toEqual(['Answer from billing: Refunded order 42.']);
      // Every call of the remote sent the same message id: the chain's and the call's.
      const calls = activities
        .filter((a) => a.name === 'callRemoteAgent')
        .map((a) => a.input as { messageId: string; taskId?: string; waiting?: string; lostWorker?: unknown });
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(new Set(calls.map((c) => c.messageId))).toEqual(new Set([`${run.workflowId}/billing-1.1#call_desk_1_1`]));
      expect(calls.some((c) => c.lostWorker !== undefined)).toBe(true);
      expect(calls.at(-1)).toMatchObject({ taskId: wait!.taskId, waiting: 'input-required' });
      // Nothing waits any more (an emptied memo field reads as absent).
      const done = await handle.describe();
      expect(done.memo?.[REMOTE_WAITS_MEMO] ?? []).toEqual([]);
      expect(done.typedSearchAttributes.getAll().find((a) => a.key.name === 'BatonStatus')?.value).toBe('completed');
    } finally {
      await sigkill(worker);
    }
  }, 240_000);

  it('a remote task that fails is a typed failure on the record; onFailure "fail" fails the chain with it, "report" tells the model', async () => {
    const team = deskTeam(remote.url, TOKENS.ops);
    await withWorker(server.env, team, async (baton) => {
      const strict = await baton.start('strict', 'Refund order 42.', { retry: { ...fastRetry, maximumAttempts: 2 } });
      const failure = await strict.result().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DelegationFailedError);
      expect((failure as DelegationFailedError).reason).toMatch(
        /^RemoteAgentError: Remote agent "broken" did not answer: the task failed: The chain failed: UnexpectedModelCallError/,
      );
      const history = await server.env.client.workflow.getHandle(strict.workflowId).fetchHistory();
      const failed = history.events!.flatMap((e) =>
        e.activityTaskFailedEventAttributes ? [e.activityTaskFailedEventAttributes.failure] : [],
      );
      expect(failed.map((f) => f?.applicationFailureInfo?.type)).toEqual(['RemoteAgentError']);
      expect(failed[0]?.applicationFailureInfo?.nonRetryable).toBe(true);

      // A refusal by the remote (a token it does not know) is not retried; the model hears of it.
      const stranger = await baton.start('stranger', 'Refund order 42.', {
        retry: { ...fastRetry, maximumAttempts: 5 },
      });
      expect((await stranger.result()).output).toBe('Refused.');
      const calls = (await activitiesInHistory(server.env.client.workflow.getHandle(stranger.workflowId))).filter(
        (a) => a.name === 'callRemoteAgent',
      );
      expect(calls.map((c) => c.attempt)).toEqual([1]);
      const turns = (await activitiesInHistory(server.env.client.workflow.getHandle(stranger.workflowId))).filter(
        (a) => a.name === 'callModel',
      );
      const told = (turns[1]!.input as CallModelInput).messages.find((m) => m.role === 'tool')?.content;
      expect(told).toMatch(/The task delegated to outsider failed: RemoteAgentError: .*401/);
    });
  }, 120_000);

  it("a delegation's timeout bounds its calls and their retries: it fails as timed out, and its remote task is cancelled", async () => {
    await withWorker(server.env, deskTeam(remote.url, TOKENS.ops), async (baton) => {
      const before = await remoteChains();
      const run = await baton.start('hasty', 'Refund order 42.', { heartbeatTimeout: '1 second' });
      expect((await run.result()).output).toBe('Too slow.');
      const turns = (await activitiesInHistory(server.env.client.workflow.getHandle(run.workflowId))).filter(
        (a) => a.name === 'callModel',
      );
      expect((turns[1]!.input as CallModelInput).messages.find((m) => m.role === 'tool')?.content).toMatch(
        /The task delegated to billing failed: RemoteAgentError: .*timed out/,
      );
      const [taskId] = (await remoteChains()).filter((id) => !before.includes(id));
      const there = await waitFor(
        () => caller(remote.url)('GET', `/v1/runs/${encodeURIComponent(taskId!)}`, { token: TOKENS.viewer }),
        (a) => a.body?.status === 'cancelled',
        30_000,
      );
      expect(there.body.status).toBe('cancelled');
    });
  }, 120_000);

  it('a chain cancelled while its remote task waits cancels the remote task', async () => {
    await withWorker(server.env, deskTeam(remote.url, TOKENS.ops), async (baton) => {
      const run = await baton.start('desk', 'My order 42 arrived broken.');
      const handle = server.env.client.workflow.getHandle(run.workflowId);
      const waiting = await waitFor(
        () => handle.describe(),
        (d) => (d.memo?.[REMOTE_WAITS_MEMO] as unknown[] | undefined)?.length === 1,
        60_000,
      );
      const [wait] = waiting.memo![REMOTE_WAITS_MEMO] as { taskId: string }[];
      await handle.cancel();
      await expect(run.result()).rejects.toThrow();
      const call = caller(remote.url);
      const there = await waitFor(
        () => call('GET', `/v1/runs/${encodeURIComponent(wait!.taskId)}`, { token: TOKENS.viewer }),
        (a) => a.body?.status === 'cancelled',
        30_000,
      );
      expect(there.body.status).toBe('cancelled');
    });
  }, 120_000);
});
