/**
 * What other programs may send a chain: any JSON as input and as signals. Every run ends, completed
 * or failed with a baton error, and never spins in a workflow-task retry loop.
 */
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import {
  approveHandoffSignal,
  BATON_ERROR_TYPES,
  decideHandoffUpdate,
  overrideRunSignal,
  rejectHandoffSignal,
  WorkflowType,
} from '../../src/workflow';
import { createActivities } from '../../activities';
import { WORKFLOWS_PATH } from '../../src/worker';
import { taskQueue as newTaskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

const team = () =>
  new Team([
    defineAgent({
      id: 'a',
      instructions: 'A',
      model: scripted({
        rules: [
          { whenIncludes: 'hand', reply: { handoff: { to: 'b', message: 'over' } } },
          { whenIncludes: '', reply: { text: 'answer from a' } },
        ],
      }),
    }),
    defineAgent({
      id: 'b',
      instructions: 'B',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'answer from b' } }] }),
      approval: { timeout: '2 seconds', onTimeout: 'reject' },
    }),
  ]);

/**
 * The workflow tasks that failed, by cause. A task whose completion met a signal that arrived
 * meanwhile fails with `UnhandledCommand` and runs again at once with it: that is Temporal's way,
 * not a retry loop, so it is not counted.
 */
const failedTasks = async (handle: WorkflowHandle) =>
  ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    const cause = failed ? temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0] : undefined;
    return failed && cause !== 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND'
      ? [`${cause}: ${failed.failure?.message}`]
      : [];
  });

/** Start `input` as another program would, and say how the run ended. */
async function outcome(
  handle: WorkflowHandle,
): Promise<{ status: 'completed' } | { status: 'failed'; type?: string; message: string }> {
  try {
    await handle.result();
    return { status: 'completed' };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause as { type?: string; message: string } | undefined;
    return { status: 'failed', type: cause?.type, message: cause?.message ?? err.message };
  }
}

const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)),
  ]);

describe('input from other programs', () => {
  it.each([
    ['a carried state that is not one', { agent: 'a', input: 'hi', resume: {} }, /"resume.team" is missing/],
    [
      'a retry policy whose maximum interval is below its initial one',
      { agent: 'a', input: 'hi', options: { retry: { initialInterval: '10 seconds', maximumInterval: '1 second' } } },
      /must not be below "retry.initialInterval"/,
    ],
    [
      'continue-as-new after every event',
      { agent: 'a', input: 'hi', options: { continueAsNewAfterEvents: 1 } },
      /"continueAsNewAfterEvents" must be an integer >= 20/,
    ],
    [
      'a model timeout no call could meet',
      { agent: 'a', input: 'hi', options: { modelTimeout: 1 } },
      /"modelTimeout" must be a duration from 1 second/,
    ],
    [
      'controls that are not ones (a budget tier, a loop policy, a deadline)',
      { agent: 'a', input: 'hi', options: { budget: 'huge', onLoop: 'warn', deadline: 'tomorrow' } },
      /"budget" must be "simple" or "medium" or "complex", got "huge"; "deadline" must be a duration from the start .*; "onLoop" must be "fail" or "refuse", got "warn"/,
    ],
  ])('fails %s at once with InvalidRunInputError', async (_what, input, problem) => {
    await withWorker(server.env, team(), async (_baton, taskQueue) => {
      const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue,
        workflowId: `bad-${Date.now()}-${Math.random()}`,
        args: [input],
      });
      const ended = await within(15_000, 'the run', outcome(handle));
      expect(ended).toMatchObject({
        status: 'failed',
        type: 'InvalidRunInputError',
        message: expect.stringMatching(problem),
      });
      expect(await failedTasks(handle)).toEqual([]);
    });
  });

  it('refuses decisions whose comment or reason is not a string, records the refusal, and goes on', async () => {
    await withWorker(server.env, team(), async (baton) => {
      const run = await baton.start('a', 'please hand over');
      const [pending] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      await run.handle.signal(approveHandoffSignal, {
        handoffId: pending!.handoffId,
        approver: 'alice',
        comment: 42,
      } as never);
      await run.handle.signal(rejectHandoffSignal, 'no' as never);
      const update = await run.handle
        .executeUpdate(decideHandoffUpdate, {
          args: [{ handoffId: pending!.handoffId, approver: 'bob', decision: 'reject', reason: ['x'] } as never],
        })
        .catch((e: unknown) => e);
      expect(String((update as Error).cause ?? update)).toMatch(/"decision.reason" must be a string/);
      await baton.approve(run.workflowId, pending!.handoffId, { approver: 'alice', comment: 'fine' });
      expect((await run.result()).output).toBe('answer from b');
      const audit = await baton.audit(run.workflowId);
      const refused = audit.events
        .filter((e) => e.kind === 'decision_refused')
        // Refusals that arrive in one activation are one record: the first, and the others as samples.
        .flatMap((e) => {
          const r = e as { reason: string; samples?: { reason: string }[] };
          return [r.reason, ...(r.samples ?? []).map((s) => s.reason)];
        });
      expect(refused).toEqual([
        expect.stringMatching(/"decision.comment" must be a string/),
        expect.stringMatching(/"decision" must be an object/),
      ]);
    });
  });

  it('fails the run, instead of retrying its workflow task forever, when something unexpected is thrown', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: [path.join(__dirname, 'probe/defect.ts')],
      logger: new DefaultLogger('WARN'),
    });
    const taskQueue = newTaskQueue();
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities({ team: team() }),
    });
    await worker.runUntil(async () => {
      const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue,
        workflowId: `defect-${Date.now()}`,
        args: [{ agent: 'a', input: 'hi' }],
      });
      const ended = await within(15_000, 'the run', outcome(handle));
      expect(ended).toMatchObject({
        status: 'failed',
        type: 'UnexpectedWorkflowError',
        message: 'Unexpected TypeError in the workflow: a defect in workflow code',
      });
      expect(await failedTasks(handle)).toEqual([]);
    });
  });

  it('ends every run, whatever JSON arrives as input and as signals (property)', async () => {
    const optionValue = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(0, 1, 2, 25, -1, 1.5, '1 second', '3 seconds', 'soon', 'retry', 'fail', 'accept', true, null),
      fc.record(
        {
          initialInterval: fc.constantFrom('100 ms', '1 second', 10),
          maximumInterval: fc.constantFrom('1 second', 5, '2 seconds'),
          maximumAttempts: fc.constantFrom(1, 2, 0),
        },
        { requiredKeys: [] },
      ),
    );
    const options = fc.dictionary(
      fc.constantFrom(
        'maxHandoffs',
        'maxTurns',
        'onInvalidHandoff',
        'maxInvalidHandoffRetries',
        'onEmptyOutput',
        'modelTimeout',
        'toolTimeout',
        'heartbeatTimeout',
        'retry',
        'approvals',
        'continueAsNewAfterEvents',
        'colour',
      ),
      optionValue,
      { maxKeys: 3 },
    );
    const input = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          agent: fc.oneof(fc.constantFrom('a', 'b', 'nobody', ''), fc.jsonValue()),
          input: fc.oneof(fc.constantFrom('hi', 'please hand over'), fc.jsonValue()),
          options: fc.oneof(options, fc.jsonValue()),
          resume: fc.jsonValue(),
        },
        { requiredKeys: ['agent', 'input'] },
      ),
    );
    const signal = fc.record({
      name: fc.constantFrom(approveHandoffSignal.name, rejectHandoffSignal.name, overrideRunSignal.name),
      arg: fc.oneof(
        fc.jsonValue(),
        fc.record({ handoffId: fc.string(), approver: fc.jsonValue(), comment: fc.jsonValue() }, { requiredKeys: [] }),
        fc.record({ options: options }, { requiredKeys: [] }),
      ),
    });

    await withWorker(server.env, team(), async (_baton, taskQueue) => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(input, fc.array(signal, { maxLength: 3 }), async (raw, signals) => {
          const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
            taskQueue,
            workflowId: `fuzz-${Date.now()}-${n++}`,
            args: [raw],
          });
          for (const s of signals) await handle.signal(s.name, s.arg).catch(() => undefined);
          const ended = await within(25_000, `the run of ${JSON.stringify(raw)}`, outcome(handle));
          if (ended.status === 'failed') expect(BATON_ERROR_TYPES).toContain(ended.type);
          expect(await failedTasks(handle)).toEqual([]);
        }),
        {
          numRuns: Number(process.env.FC_RUNS ?? 40),
          seed: Number(process.env.FC_SEED ?? Date.now() % 100_000),
          verbose: true,
        },
      );
    });
  }, 600_000);
});
