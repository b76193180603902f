/**
 * History that grows while a chain waits, on a real server and worker: refused signals of ~1.9 MB
 * (each under Temporal's 2 MB payload limit, each in history once accepted) one a second, to a
 * chain whose tool call waits for approval, to one whose handoff waits, and to a
 * conversation between messages, until more than the server's limit on a run's history has
 * arrived. Each wait continues as new before that limit, carrying what waits; no run is
 * terminated; the one decision that counts completes the chain, and the approved tool runs once.
 *
 * Here the server ends a run at 12 MB of history instead of Temporal's 50 MB: every threshold a
 * waiting run hands over at (workflows/historyLimits.ts: 1 MB refused unread, 8 MB of history,
 * Temporal's suggestion at 4 MB) is below both, so a flood past 12 MB fails the same way a flood
 * past 50 MB would when a run does not hand over (Temporal terminates it). `npm run drill -- bounds`
 * runs this file against Temporal's own limit, with 32 signals (60 MB).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { approveHandoffSignal, rejectHandoffSignal } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { big, failedTasks } from './history';

/** Against Temporal's own history limit (50 MB), as `npm run drill -- bounds` runs it. */
const FULL_SIZE = process.env.BATON_BOUNDS_FULL_SIZE === '1';
/** The history a run may hold before the server terminates it (`limit.historySize.error`). */
const HISTORY_LIMIT_BYTES = FULL_SIZE ? 50 * 1024 * 1024 : 12 * 1024 * 1024;
const server = useTemporalServer(
  FULL_SIZE ? {} : { dynamicConfig: [`limit.historySize.error=${HISTORY_LIMIT_BYTES}`] },
);

/** About 1.9 MB a signal, a fifth more of them than the server's history limit holds: 8 here, 32 against Temporal's 50 MB. */
const SIGNAL_BYTES = 1_900_000;
const SIGNALS = FULL_SIZE ? 32 : 8;

/**
 * Send `n` signals made by `send`, one a second (three times the rate of the report that ended a
 * waiting tool call at 71 MB): a signal every second or so is what any client manages. (Faster than
 * about 2 MB for each workflow task a worker runs, Temporal fails every task of the run it arrives
 * at, whatever the workflow does: see docs/bad-inputs.md.)
 */
async function flood(n: number, send: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i++) {
    const started = Date.now();
    await send(i);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
  }
}

/** How every run of the chain ended (the last one included), from its first run on. */
async function runEnds(workflowId: string, runIds: string[]): Promise<string[]> {
  return Promise.all(
    runIds.map(async (runId) => (await server.env.client.workflow.getHandle(workflowId, runId).describe()).status.name),
  );
}

/** Workflow tasks that failed in any run of the chain. */
async function failedInAnyRun(workflowId: string, runIds: string[]): Promise<string[]> {
  return (
    await Promise.all(
      runIds.map((runId) => failedTasks(server.env.client.workflow.getHandle(workflowId, runId) as WorkflowHandle)),
    )
  ).flat();
}

describe('history that grows while a chain waits', () => {
  it(
    'continues a tool call waiting for approval as new before Temporal ends it, and the approved call runs once',
    { timeout: 480_000 },
    async () => {
      let ran = 0;
      const pay = defineTool({
        name: 'pay',
        description: 'Pay someone',
        parameters: z.object({ amount: z.number() }),
        needsApproval: { approvers: ['alice'] },
        execute: ({ amount }) => {
          ran++;
          return `paid ${amount}`;
        },
      });
      const team = new Team([
        scriptedAgent('a', [{ toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] }, { text: 'paid' }], {
          tools: [pay],
        }),
      ]);
      await withWorker(server.env, team, async (baton) => {
        const run = await baton.start('a', 'pay five');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        expect(waiting!.tool).toMatchObject({ name: 'pay' });
        const handle = server.env.client.workflow.getHandle(run.workflowId);
        await flood(SIGNALS, (i) =>
          handle.signal(i % 2 ? approveHandoffSignal : rejectHandoffSignal, {
            handoffId: waiting!.handoffId,
            approver: 'mallory',
            comment: big(SIGNAL_BYTES),
          } as never),
        );

        // The same call still waits, in a later run.
        const [still] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        expect(still).toEqual(waiting);
        await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
        expect((await run.result()).output).toBe('paid');
        expect(ran).toBe(1);

        const audit = await baton.audit(run.workflowId);
        expect(audit.runIds.length).toBeGreaterThanOrEqual(2);
        expect(await runEnds(run.workflowId, audit.runIds)).toEqual([
          ...audit.runIds.slice(1).map(() => 'CONTINUED_AS_NEW'),
          'COMPLETED',
        ]);
        expect(await failedInAnyRun(run.workflowId, audit.runIds)).toEqual([]);
        expect(audit.events.filter((e) => e.kind === 'approval_requested')).toHaveLength(1);
        expect(audit.events.filter((e) => e.kind === 'tool_call' && e.tool === 'pay')).toHaveLength(1);
      });
    },
  );

  it(
    'continues a handoff waiting for approval as new under the same flood, and the approval completes it',
    { timeout: 480_000 },
    async () => {
      const team = new Team([
        scriptedAgent('a', [{ handoff: { to: 'b', message: 'over' } }]),
        scriptedAgent('b', [{ text: 'answer from b' }], { approval: { approvers: ['alice'] } }),
      ]);
      await withWorker(server.env, team, async (baton) => {
        const run = await baton.start('a', 'go');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const handle = server.env.client.workflow.getHandle(run.workflowId);
        await flood(SIGNALS, () =>
          handle.signal(approveHandoffSignal, {
            handoffId: waiting!.handoffId,
            approver: 'mallory',
            comment: big(SIGNAL_BYTES),
          }),
        );
        await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
        expect((await run.result()).output).toBe('answer from b');
        const audit = await baton.audit(run.workflowId);
        expect(audit.runIds.length).toBeGreaterThanOrEqual(2);
        expect((await runEnds(run.workflowId, audit.runIds)).at(-1)).toBe('COMPLETED');
        expect(await failedInAnyRun(run.workflowId, audit.runIds)).toEqual([]);
      });
    },
  );

  it(
    'continues a conversation waiting for its next message as new under the same flood, and it answers the next message',
    { timeout: 480_000 },
    async () => {
      const team = new Team([scriptedAgent('solo', [{ text: 'first' }, { text: 'second' }])]);
      await withWorker(server.env, team, async (baton) => {
        const chat = baton.conversation('solo');
        expect((await chat.send('one')).output).toBe('first');
        const handle = server.env.client.workflow.getHandle(chat.id);
        const firstRun = (await handle.describe()).runId;
        await flood(SIGNALS, () =>
          handle.signal(approveHandoffSignal, { handoffId: 'none', approver: 'mallory', comment: big(SIGNAL_BYTES) }),
        );
        expect((await chat.send('two')).output).toBe('second');
        expect((await handle.describe()).runId).not.toBe(firstRun);
        expect(await failedTasks(handle as WorkflowHandle)).toEqual([]);
      });
    },
  );
});
