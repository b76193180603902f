/**
 * Floods of refused signals on a real server and worker: thousands of decisions from someone who
 * may not decide, landing in one activation of a waiting chain. The refusals cost one memo write
 * per activation (counted and sampled), no workflow task fails, the chain stays open, and the
 * approver's one decision completes it.
 *
 * Here 2,500 decisions land, on a server that suggests continuing as new past 1,000 events instead
 * of Temporal's 4,096, so the chain passes that mark as it does with 10,000 at Temporal's own;
 * `npm run drill -- bounds` sends the 10,000 to a server with Temporal's defaults.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { LIMITS, Team } from '../../src';
import { approveHandoffSignal, WorkflowType } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { approvalEvents, failedTasks, statusOf } from './history';

/** At the size of the report it answers (10,000 decisions), as `npm run drill -- bounds` runs it. */
const FULL_SIZE = process.env.BATON_BOUNDS_FULL_SIZE === '1';
const N = FULL_SIZE ? 10_000 : 2_500;
const server = useTemporalServer(FULL_SIZE ? {} : { dynamicConfig: ['limit.historyCount.suggestContinueAsNew=1000'] });

const team = () =>
  new Team([
    scriptedAgent('a', [{ handoff: { to: 'b', message: 'over' } }]),
    scriptedAgent('b', [{ text: 'answer from b' }], { approval: { approvers: ['alice'] } }),
  ]);

/** Send `n` signals made by `make`, `parallel` at a time. */
async function flood(n: number, parallel: number, send: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < n; i = next++) await send(i);
    }),
  );
}

/** Poll `read` every 3 s until `done` holds (at most 3 minutes). */
async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    await new Promise((r) => setTimeout(r, 3000));
    const value = await read();
    if (done(value) || i === 60) return value;
  }
}

/** Memo upserts (`WorkflowPropertiesModified` events) of one run of the chain. */
async function memoWrites(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowPropertiesModifiedEventAttributes).length;
}

describe('floods of refused signals', () => {
  it(
    'takes thousands of refused decisions that land in one activation with O(1) writes, and the approver still completes the chain',
    { timeout: 240_000 },
    async () => {
      const queue = taskQueue();
      const workflowId = `flood-${Date.now()}`;
      const { handoffId, runId } = await withWorker(
        server.env,
        team(),
        async (baton) => {
          const run = await baton.start('a', 'go', { workflowId });
          const [pending] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          return { handoffId: pending!.handoffId, runId: (await run.handle.describe()).runId };
        },
        { taskQueue: queue },
      );
      // No worker polls now: every signal lands in the chain's next activation. The run may continue
      // as new after it (its history is past the server's suggestion): what it recorded stays in this run.
      const handle = server.env.client.workflow.getHandle(workflowId, runId);
      const before = await memoWrites(handle);
      await flood(N, 64, (i) => handle.signal(approveHandoffSignal, { handoffId, approver: `mallory-${i}` }));

      await withWorker(
        server.env,
        team(),
        async (baton) => {
          // Every refusal is on the record, counted (read every few seconds: a history of thousands of events is not read for free).
          const refused = await settled(
            () => approvalEvents(handle as WorkflowHandle),
            (events) =>
              events
                .filter((e) => e.type === 'decision_refused')
                .reduce((n, e) => n + (typeof e.count === 'number' ? e.count : 1), 0) >= N,
          );
          const records = refused.filter((e) => e.type === 'decision_refused');
          expect(records.length).toBeLessThanOrEqual(3);
          expect(records[0]).toMatchObject({
            approver: expect.stringMatching(/^mallory-\d+$/),
            via: 'signal',
            reason: expect.stringMatching(/^mallory-\d+ may not decide this handoff \(approvers: alice\)$/),
            count: expect.any(Number),
          });
          expect(records[0]!.samples).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ approver: expect.stringMatching(/^mallory-\d+$/), via: 'signal' }),
            ]),
          );
          expect((records[0]!.samples as unknown[]).length).toBeLessThanOrEqual(LIMITS.refusalSamples);
          expect(await memoWrites(handle)).toBeLessThan(before + 10);
          const latest = server.env.client.workflow.getHandle(workflowId) as WorkflowHandle;
          expect(await statusOf(latest)).toBe('RUNNING');
          expect(await failedTasks(handle as WorkflowHandle)).toEqual([]);

          expect(await baton.approve(workflowId, handoffId, { approver: 'alice' })).toMatchObject({
            outcome: 'approved',
            approver: 'alice',
          });
          const result = await baton.getRun(workflowId).result();
          expect(result.output).toBe('answer from b');
          expect(await failedTasks(latest)).toEqual([]);
          const audit = await baton.audit(workflowId);
          const inAudit = audit.events.filter((e) => e.kind === 'decision_refused');
          expect(inAudit.reduce((n, e) => n + ((e as { count?: number }).count ?? 1), 0)).toBe(N);
        },
        { taskQueue: queue },
      );
      expect((await server.env.client.workflow.getHandle(workflowId).describe()).type).toBe(WorkflowType.HANDOFF_RUN);
    },
  );
});
