/**
 * Payloads that are not JSON, from clients other than baton's: the `temporal` CLI and raw payloads
 * through Temporal's client. A start fails its chain (or conversation) at once with
 * `InvalidRunInputError` saying what is wrong and what a start is; a signal is refused on the
 * record and the chain goes on; an update is rejected, typed, before anything is written. No
 * workflow task fails, so nothing wedges.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type WorkflowHandle, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { type Payload, RawValue, rawValueTypeInfo } from '@temporalio/common';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { ApprovalRefusedError, InvalidRunInputError, Team } from '../../src';
import { InputTooLargeError, WorkflowType } from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { findTemporalBinary } from '../../src/devserver/binary';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { approvalEvents, failedTasks, statusOf } from './history';

const server = useTemporalServer();

const team = () =>
  new Team([
    scriptedAgent('a', [{ handoff: { to: 'b', message: 'over' } }]),
    scriptedAgent('b', [{ text: 'answer from b' }], { approval: { approvers: ['alice'] } }),
  ]);

const RAW = { inputTypes: [rawValueTypeInfo] };

/** A payload of `data` as it is, in `encoding`. */
const payload = (data: string | Buffer, encoding = 'json/plain'): RawValue =>
  RawValue.fromPayload({
    metadata: { encoding: Buffer.from(encoding) },
    data: Buffer.isBuffer(data) ? data : Buffer.from(data),
  } satisfies Payload);

/** Start `type` with one raw payload and wait for its failure. */
async function startRaw(
  type: string,
  taskQueue: string,
  arg: RawValue,
): Promise<{ error: unknown; handle: WorkflowHandle }> {
  const handle = await server.env.client.workflow.start(type, {
    taskQueue,
    workflowId: `raw-${Date.now()}-${Math.random()}`,
    args: [arg],
    typeInfo: RAW,
  });
  const error = await handle.result().catch((e: unknown) => e);
  return { error, handle: handle as WorkflowHandle };
}

describe('payloads that are not JSON', () => {
  it(
    'fail a chain started with NaN, Infinity, truncated JSON or another encoding with InvalidRunInputError, never its workflow task',
    { timeout: 120_000 },
    async () => {
      await withWorker(server.env, team(), async (_baton, taskQueue) => {
        for (const [arg, said] of [
          [
            payload('NaN'),
            /the start input is not JSON \(.*\); start it with a JSON object \{"agent": string, "input": string/,
          ],
          [payload('Infinity'), /the start input is not JSON/],
          [payload('{"agent": "a", "input": "go'), /the start input is not JSON/],
          [payload(''), /the start input is not JSON/],
          [
            payload(Buffer.from([0x01, 0x02]), 'binary/plain'),
            /the start input is not JSON: its payload's encoding is "binary\/plain", and baton reads JSON \("json\/plain"\)/,
          ],
        ] as const) {
          const { error, handle } = await startRaw(WorkflowType.HANDOFF_RUN, taskQueue, arg);
          expect(error).toBeInstanceOf(WorkflowFailedError);
          const typed = toBatonError(error);
          expect(typed).toBeInstanceOf(InvalidRunInputError);
          expect((typed as InvalidRunInputError).problems[0]).toMatch(said);
          expect(await failedTasks(handle)).toEqual([]);
        }
        // A conversation alike.
        const { error, handle } = await startRaw(WorkflowType.CONVERSATION, taskQueue, payload('NaN'));
        expect(toBatonError(error)).toBeInstanceOf(InvalidRunInputError);
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );

  it('name 1e400 by what it reads as, and "__proto__" as an unknown option', { timeout: 60_000 }, async () => {
    await withWorker(server.env, team(), async (_baton, taskQueue) => {
      const big = await startRaw(
        WorkflowType.HANDOFF_RUN,
        taskQueue,
        payload('{"agent": "a", "input": "go", "options": {"maxHandoffs": 1e400}}'),
      );
      expect((toBatonError(big.error) as InvalidRunInputError).problems).toEqual([
        '"maxHandoffs" must be an integer >= 0 and <= 1000000, got Infinity (a number beyond what JSON numbers hold, such as 1e400)',
      ]);
      const proto = await startRaw(
        WorkflowType.HANDOFF_RUN,
        taskQueue,
        payload('{"agent": "a", "input": "go", "options": {"__proto__": {"maxHandoffs": 1}, "constructor": 1}}'),
      );
      const problems = (toBatonError(proto.error) as InvalidRunInputError).problems;
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^unknown option "__proto__" \(valid: maxHandoffs, /),
          expect.stringMatching(/^unknown option "constructor" /),
        ]),
      );
      // An agent named like what every object inherits is not in the team.
      const inherited = await startRaw(
        WorkflowType.HANDOFF_RUN,
        taskQueue,
        payload('{"agent": "constructor", "input": "go"}'),
      );
      expect(toBatonError(inherited.error)).toMatchObject({ name: 'AgentNotFoundError', agent: 'constructor' });
    });
  });

  it(
    'fail chains the temporal CLI starts with a file that is not JSON, or with 1e400',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, team(), async (_baton, taskQueue) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-cli-'));
        const cli = findTemporalBinary('cli')!;
        const start = (content: string, meta: string[]) => {
          const file = path.join(dir, `${Math.random()}.json`);
          fs.writeFileSync(file, content);
          const workflowId = `cli-${Date.now()}-${Math.random()}`;
          execFileSync(
            cli,
            [
              'workflow',
              'start',
              '--address',
              server.env.address,
              '--type',
              WorkflowType.HANDOFF_RUN,
              '--task-queue',
              taskQueue,
              '--workflow-id',
              workflowId,
              '--input-file',
              file,
              ...meta,
            ],
            { stdio: 'pipe' },
          );
          return server.env.client.workflow.getHandle(workflowId) as WorkflowHandle;
        };
        // The CLI itself checks JSON it is told is JSON; NaN it sends with another encoding.
        for (const [handle, said] of [
          [
            start('NaN', ['--input-meta', 'encoding=binary/plain']),
            /^the start input is not JSON: its payload's encoding is "binary\/plain"/,
          ],
          [
            start('{"agent": "a", "input": "go", "options": {"maxHandoffs": 1e400}}', []),
            /^"maxHandoffs" must be an integer >= 0 and <= 1000000, got Infinity \(a number beyond what JSON numbers hold, such as 1e400\)$/,
          ],
        ] as const) {
          const error = await handle.result().catch((e: unknown) => e);
          expect(toBatonError(error)).toBeInstanceOf(InvalidRunInputError);
          expect((toBatonError(error) as InvalidRunInputError).problems[0]).toMatch(said);
          expect(await failedTasks(handle)).toEqual([]);
        }
      });
    },
  );

  it(
    'refuse signals that are not JSON on the record, reject such updates typed, and the chain goes on',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('a', 'go');
        const [pending] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const handle = run.handle as WorkflowHandle;
        const approve = defineSignal<[RawValue]>('approveHandoff', { typeInfo: RAW });
        const overrides = defineSignal<[RawValue]>('overrideRun', { typeInfo: RAW });
        const report = defineSignal<[RawValue]>('childApprovals', { typeInfo: RAW });
        await handle.signal(approve, payload('NaN'));
        await handle.signal(approve, payload(Buffer.from('x'.repeat(1_900_000)), 'json/plain'));
        await handle.signal(overrides, payload('{"options":'));
        await handle.signal(report, payload(Buffer.from([0xff]), 'binary/plain'));
        // Signals that land in one step are recorded together: count what each record stands for.
        const standsFor = (e: Record<string, unknown>) => (typeof e.count === 'number' ? e.count : 1);
        const events = await waitFor(
          () => approvalEvents(handle),
          (e) =>
            e.filter((x) => x.type === 'decision_refused').reduce((n, x) => n + standsFor(x), 0) === 2 &&
            e.some((x) => x.type === 'overrides_refused') &&
            e.some((x) => x.type === 'report_refused'),
        );
        const refused = events.filter((e) => e.type.endsWith('_refused'));
        const reasons = refused
          .filter((e) => e.type === 'decision_refused')
          .flatMap((d) => [d.reason, ...((d.samples as { reason: string }[] | undefined) ?? []).map((s) => s.reason)]);
        expect(reasons).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^the decision is not JSON \(.*\); send \{"handoffId", "approver", …\} as JSON$/),
            '"decision" is 1900000 bytes; the limit is 81920 bytes',
          ]),
        );
        expect(refused.find((e) => e.type === 'overrides_refused')).toMatchObject({
          problems: [expect.stringMatching(/^the overrides is not JSON/)],
        });

        const decide = defineUpdate<unknown, [RawValue]>('decideHandoff', { typeInfo: RAW });
        const steer = defineUpdate<unknown, [RawValue]>('steer', { typeInfo: RAW });
        const rejected = await handle.executeUpdate(decide, { args: [payload('NaN')] }).catch((e: unknown) => e);
        expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
        expect(toBatonError(rejected)).toBeInstanceOf(ApprovalRefusedError);
        const tooBig = await handle
          .executeUpdate(decide, { args: [payload('"' + 'x'.repeat(400_000) + '"')] })
          .catch((e: unknown) => e);
        expect(toBatonError(tooBig)).toMatchObject({
          name: InputTooLargeError.name,
          field: 'decision',
          limit: 81920,
          unit: 'bytes',
        });
        expect(
          toBatonError(await handle.executeUpdate(steer, { args: [payload('{')] }).catch((e: unknown) => e)),
        ).toBeInstanceOf(InvalidRunInputError);

        expect(await statusOf(handle)).toBe('RUNNING');
        expect(await baton.approve(run.workflowId, pending!.handoffId, { approver: 'alice' })).toMatchObject({
          outcome: 'approved',
        });
        expect((await run.result()).output).toBe('answer from b');
        expect(await failedTasks(handle)).toEqual([]);
        // The audit reads what it cannot show as such, and says so.
        const audit = await baton.audit(run.workflowId);
        const signals = audit.events.filter((e) => e.kind === 'signal');
        expect(signals).toContainEqual(
          expect.objectContaining({ name: 'approveHandoff', input: { unread: expect.stringMatching(/^not JSON/) } }),
        );
      });
    },
  );

  it(
    'reject a conversation message that is not JSON with InvalidRunInputError, and the conversation answers the next',
    { timeout: 60_000 },
    async () => {
      const solo = new Team([scriptedAgent('solo', [{ text: 'hi' }])]);
      await withWorker(server.env, solo, async (baton) => {
        const chat = baton.conversation('solo');
        expect((await chat.send('hello')).output).toBe('hi');
        const handle = server.env.client.workflow.getHandle(chat.id);
        const send = defineUpdate<unknown, [RawValue]>('sendMessage', { typeInfo: RAW });
        const rejected = await handle
          .executeUpdate(send, { args: [payload('{"message": NaN}')] })
          .catch((e: unknown) => e);
        expect(toBatonError(rejected)).toBeInstanceOf(InvalidRunInputError);
        expect((toBatonError(rejected) as InvalidRunInputError).problems[0]).toMatch(/^the message is not JSON/);
        expect(await failedTasks(handle as WorkflowHandle)).toEqual([]);
      });
    },
  );
});
