/**
 * Oversized fields from any client, on a real server and worker: decisions by signal and update,
 * conversation messages and keys, start inputs and overrides. Each is refused inside the workflow
 * (the update's validator before anything is written, a signal recorded with a clipped reason),
 * what the workflow writes stays small, and the chain or conversation goes on to complete.
 */
import { WorkflowFailedError, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src';
import {
  type approveHandoffSignal,
  decideHandoffUpdate,
  InputTooLargeError,
  overrideRunSignal,
  sendMessageUpdate,
  WorkflowType,
} from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { approvalEvents, big, failedTasks, largestWrites, MB_1_5, MB_2_5, statusOf } from './history';
import { oversizedSignals, refusedSignal, solo, team } from './oversized.fixtures';

const server = useTemporalServer();

/** The typed error of an update the validator rejected. */
const rejection = (err: unknown) => {
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return toBatonError(err);
};

describe('oversized fields from any client', () => {
  it.each(oversizedSignals)(
    'refuses %s by signal, records the refusal clipped, and completes on one valid decision',
    { timeout: 60_000 },
    async (_what, signal, reason) => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('a', 'please hand over');
        const [pending] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const handle = run.handle as WorkflowHandle;
        const { signal: def, input } = signal(pending!.handoffId);
        const refused = await refusedSignal(handle, () =>
          handle.signal(def as typeof approveHandoffSignal, input as never),
        );
        expect(refused).toMatchObject({ via: 'signal' });
        expect(refused.reason).toMatch(
          typeof reason === 'string' ? new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : reason,
        );
        for (const field of ['handoffId', 'approver'] as const)
          expect(String(refused[field]).length).toBeLessThanOrEqual(
            field === 'handoffId' ? LIMITS.idChars : LIMITS.approverChars,
          );
        expect(await statusOf(handle)).toBe('RUNNING');

        expect(
          await baton.approve(run.workflowId, pending!.handoffId, {
            approver: 'alice',
            comment: big(LIMITS.noteChars),
          }),
        ).toMatchObject({ outcome: 'approved', approver: 'alice' });
        const result = await run.result();
        expect(result).toMatchObject({
          output: 'answer from b',
          handoffChain: [{ approval: { outcome: 'approved', approver: 'alice' } }],
        });
        expect(await failedTasks(handle)).toEqual([]);
        expect((await largestWrites(handle)).memo).toBeLessThan(16 * 1024);
      });
    },
  );

  it(
    'rejects an oversized comment, approver, handoffId or unknown field by update before anything is written, naming the field (the whole decision past twice its limit), its size and the limit',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('a', 'please hand over');
        const [pending] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const id = pending!.handoffId;
        const handle = run.handle as WorkflowHandle;
        for (const [field, decision] of [
          [
            'decision.comment',
            { handoffId: id, approver: 'alice', decision: 'approve', comment: big(LIMITS.noteChars + 1) },
          ],
          ['decision.approver', { handoffId: id, approver: big(LIMITS.approverChars + 1), decision: 'approve' }],
          ['decision.handoffId', { handoffId: big(LIMITS.idChars + 1), approver: 'alice', decision: 'approve' }],
          ['decision', { handoffId: id, approver: 'alice', decision: 'approve', comment: big(MB_1_5) }],
          ['decision', { handoffId: id, approver: 'alice', decision: 'approve', extra: big(MB_1_5) }],
        ] as const) {
          const err = rejection(
            await handle.executeUpdate(decideHandoffUpdate, { args: [decision as never] }).catch((e: unknown) => e),
          );
          expect(err).toBeInstanceOf(InputTooLargeError);
          expect(err).toMatchObject({ field, size: expect.any(Number), limit: expect.any(Number) });
          expect((err as Error).message.length).toBeLessThan(300);
        }
        // The library refuses before sending.
        await expect(
          baton.approve(run.workflowId, id, { approver: 'alice', comment: big(LIMITS.noteChars + 1) }),
        ).rejects.toBeInstanceOf(InputTooLargeError);
        expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([id]);
        expect(await approvalEvents(handle)).toEqual([expect.objectContaining({ type: 'approval_requested' })]);

        await baton.approve(run.workflowId, id, { approver: 'alice' });
        expect((await run.result()).output).toBe('answer from b');
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );

  it(
    'refuses ~1.5 MB overrides and a start input over its limits, naming the field, its size and the limit',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, team(), async (baton, taskQueue) => {
        const run = await baton.start('a', 'please hand over');
        await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const handle = run.handle as WorkflowHandle;
        await handle.signal(overrideRunSignal, {
          options: { maxHandoffs: 3 },
          models: { [big(MB_1_5)]: { provider: 'scripted', model: 'x' } },
        } as never);
        const refused = await waitFor(
          () => approvalEvents(handle),
          (events) => events.some((e) => e.type === 'overrides_refused'),
        );
        expect(refused.find((e) => e.type === 'overrides_refused')).toEqual({
          type: 'overrides_refused',
          problems: [expect.stringMatching(/^"overrides" is \d+ bytes; the limit is 65536 bytes$/)],
        });
        await expect(
          baton.override(run.workflowId, {
            models: { [big(LIMITS.optionsBytes)]: { provider: 'scripted', model: 'x' } },
          } as never),
        ).rejects.toBeInstanceOf(InputTooLargeError);
        await baton.approve(run.workflowId, undefined, { approver: 'alice' });
        expect((await run.result()).output).toBe('answer from b');

        // From another client: the run fails at once with the typed error; the library refuses before starting.
        const raw = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
          taskQueue,
          workflowId: `big-input-${Date.now()}`,
          args: [{ agent: 'a', input: big(LIMITS.messageBytes + 1) }],
        });
        const failed = await raw.result().catch((e: unknown) => e);
        expect(failed).toBeInstanceOf(WorkflowFailedError);
        expect(toBatonError(failed)).toMatchObject({
          name: 'InputTooLargeError',
          field: 'input',
          size: LIMITS.messageBytes + 1,
          limit: LIMITS.messageBytes,
          unit: 'bytes',
        });
        expect(await failedTasks(raw as WorkflowHandle)).toEqual([]);
        await expect(baton.start('a', big(LIMITS.messageBytes + 1))).rejects.toBeInstanceOf(InputTooLargeError);
        await expect(baton.start('a', 'hi', { context: { blob: big(LIMITS.contextBytes) } })).rejects.toThrow(
          /"context" is \d+ bytes/,
        );
      });
    },
  );

  it(
    'refuses a ~1.5 MB message and a ~1.5 MB idempotency key sent to a conversation, and a key like baton’s own, before anything is written; it answers the next message',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, solo(), async (baton) => {
        const chat = baton.conversation('solo');
        expect(await chat.send('hi')).toMatchObject({ turn: 1, output: 'ok' });
        for (const [field, size, input] of [
          ['sendMessage.message', LIMITS.messageBytes + 1, { message: big(LIMITS.messageBytes + 1) }],
          [
            'sendMessage.idempotencyKey',
            LIMITS.idempotencyKeyChars + 1,
            { message: 'hi', idempotencyKey: big(LIMITS.idempotencyKeyChars + 1) },
          ],
          ['sendMessage', expect.any(Number), { message: big(MB_1_5) }],
          ['sendMessage', expect.any(Number), { message: 'hi', idempotencyKey: big(MB_1_5) }],
          ['sendMessage', expect.any(Number), { message: 'hi', note: big(MB_1_5) }],
        ] as const) {
          const err = rejection(
            await chat.handle.executeUpdate(sendMessageUpdate, { args: [input as never] }).catch((e: unknown) => e),
          );
          expect(err).toBeInstanceOf(InputTooLargeError);
          expect(err).toMatchObject({ field, size });
        }
        await expect(chat.send(big(LIMITS.messageBytes + 1))).rejects.toBeInstanceOf(InputTooLargeError);
        // `#<turn>` is how a message without a key is remembered: a caller's key of that form would get turn 1's reply.
        const shadow = toBatonError(
          await chat.handle
            .executeUpdate(sendMessageUpdate, { args: [{ message: 'hi', idempotencyKey: '#1' }] })
            .catch((e: unknown) => e),
        );
        expect(shadow).toMatchObject({
          name: 'InvalidRunInputError',
          problems: [
            '"sendMessage.idempotencyKey" "#1" is how baton names a message sent without a key; choose another',
          ],
        });
        await expect(chat.send('hi', { idempotencyKey: '#1' })).rejects.toThrow(
          /is how baton names a message sent without a key/,
        );
        expect(await chat.send('again')).toMatchObject({ turn: 2, output: 'ok' });
        expect((await chat.end()).turns).toBe(2);
        expect(await failedTasks(chat.handle as WorkflowHandle)).toEqual([]);
      });
    },
  );

  it(
    'loses nothing to a ~2.5 MB message, over Temporal’s payload limit: Temporal drops it, and baton’s client sends the next message once the conversation takes messages again',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, solo(), async (baton) => {
        const chat = baton.conversation('solo');
        expect(await chat.send('hi')).toMatchObject({ turn: 1, output: 'ok' });
        // No worker can answer an update this large (its answer repeats the input): the task carrying it fails and Temporal drops it.
        const dropped = server.env.client
          .withDeadline(Date.now() + 3000, () =>
            chat.handle.executeUpdate(sendMessageUpdate, { args: [{ message: big(MB_2_5) }] }),
          )
          .then(
            () => 'answered',
            () => 'refused',
          );
        await waitFor(
          () => failedTasks(chat.handle as WorkflowHandle),
          (failed) => failed.length > 0,
        );
        expect(await chat.send('again')).toMatchObject({ turn: 2, output: 'ok' });
        expect(await dropped).toBe('refused');
        expect((await chat.end()).turns).toBe(2);
        const failed = await failedTasks(chat.handle as WorkflowHandle);
        expect(failed.every((f) => f.startsWith('WORKFLOW_TASK_FAILED_CAUSE_PAYLOADS_TOO_LARGE'))).toBe(true);
      });
    },
  );
});
