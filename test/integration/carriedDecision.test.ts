/**
 * A decision that comes with a run's start. When a chain or a conversation continues as new, a
 * decision sent meanwhile reaches the next run in its first activation, with its start; the
 * `decideHandoff` validator runs as the run registers its handlers, before the run has built the
 * state it carries. The decision is judged against that state: the approval it names is waiting.
 *
 * Update-with-start puts the decision in the first activation of a run started with a carried
 * state, as Temporal does for a run continued as new; the state is the one a real run carried.
 */
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import {
  approveHandoffSignal,
  conversationQuery,
  decideHandoffUpdate,
  messageQuery,
  WorkflowType,
  type ApprovalRecord,
} from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { fromPayloads } from '../../src/payloads/read';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** triage hands a refund to refunds, which alice approves. */
const team = () =>
  new Team([
    scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
    scriptedAgent('refunds', [{ text: 'Refunded order 42.' }], { approval: { approvers: ['alice'] } }),
  ]);

/** How often the chains below continue as new: after this many history events. */
const OPTIONS = { continueAsNewAfterEvents: 20 };

/**
 * The start input of the run `workflowId` continued into while `handoffId` waited: decisions by
 * someone who may not decide (each refused, on the record) grow its history past its limit.
 */
async function carriedInput(client: Client, workflowId: string, handoffId: string): Promise<Record<string, unknown>> {
  const first = client.workflow.getHandle(workflowId, (await client.workflow.getHandle(workflowId).describe()).runId);
  const open = async () => (await first.describe()).status.name === 'RUNNING';
  for (let i = 0; i < 200 && (await open()); i++)
    await first.signal(approveHandoffSignal, { handoffId, approver: 'mallory' }).catch(() => undefined);
  const history = await first.fetchHistory();
  const continued = history.events?.find(
    (e) => e.workflowExecutionContinuedAsNewEventAttributes,
  )?.workflowExecutionContinuedAsNewEventAttributes;
  const input = fromPayloads<Record<string, unknown>>(continued?.input);
  if (!input?.resume) throw new Error(`${workflowId} did not continue as new with a carried state`);
  return input;
}

/** Start `workflowType` as `workflowId` with `input`, and send alice's approval of `handoffId` in the same first activation. */
function approveWithStart(
  client: Client,
  start: { workflowType: string; workflowId: string; taskQueue: string; input: Record<string, unknown> },
  handoffId: string,
): Promise<ApprovalRecord> {
  const { workflowType, input, ...where } = start;
  const operation = new WithStartWorkflowOperation(workflowType, {
    ...where,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
  });
  return client.workflow
    .executeUpdateWithStart(decideHandoffUpdate, {
      args: [{ handoffId, approver: 'alice', decision: 'approve' }],
      startWorkflowOperation: operation,
    })
    .catch((err: unknown) => {
      throw toBatonError(err);
    });
}

describe('a decision that comes with the start of a run carrying its approval', () => {
  it('is applied in a chain: the approval it names is waiting in the carried state', { timeout: 90_000 }, async () => {
    await withWorker(server.env, team(), async (baton, taskQueue) => {
      const run = await baton.start('triage', 'I want a refund', OPTIONS);
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const input = await carriedInput(server.env.client, run.workflowId, waiting!.handoffId);

      const workflowId = `${run.workflowId}-carried`;
      const record = await approveWithStart(
        server.env.client,
        { workflowType: WorkflowType.HANDOFF_RUN, workflowId, taskQueue, input },
        waiting!.handoffId,
      );
      expect(record).toMatchObject({
        handoffId: waiting!.handoffId,
        outcome: 'approved',
        approver: 'alice',
        via: 'update',
      });
      expect(await baton.getRun(workflowId).result()).toMatchObject({
        output: 'Refunded order 42.',
        finalAgent: 'refunds',
      });
      await run.handle.terminate('the test is done with it');
    });
  });

  it('is applied in a conversation, whose carried turn is then answered', { timeout: 90_000 }, async () => {
    await withWorker(server.env, team(), async (baton, taskQueue) => {
      const chat = baton.conversation('triage', { options: OPTIONS });
      void chat.send('I want a refund').catch(() => undefined);
      const [waiting] = await waitFor(
        () =>
          chat.status().then(
            (v) => v.pendingApprovals,
            () => [],
          ),
        (p) => p.length === 1,
      );
      const input = await carriedInput(server.env.client, chat.id, waiting!.handoffId);

      const workflowId = `${chat.id}-carried`;
      const record = await approveWithStart(
        server.env.client,
        { workflowType: WorkflowType.CONVERSATION, workflowId, taskQueue, input },
        waiting!.handoffId,
      );
      expect(record).toMatchObject({
        handoffId: waiting!.handoffId,
        outcome: 'approved',
        approver: 'alice',
        via: 'update',
      });
      // The message the carried turn answers is remembered by its key, with refunds' reply.
      const idempotencyKey = (input.resume as { current: { idempotencyKey: string } }).current.idempotencyKey;
      const handle = server.env.client.workflow.getHandle(workflowId);
      const answered = await waitFor(
        () => handle.query(messageQuery, { idempotencyKey }),
        (m) => m.message?.status === 'answered',
      );
      expect(answered.message).toMatchObject({
        turn: 1,
        reply: { turn: 1, output: 'Refunded order 42.', agent: 'refunds' },
      });
      expect(await handle.query(conversationQuery)).toMatchObject({
        turns: 1,
        activeAgent: 'refunds',
        pendingApprovals: [],
      });
      await handle.terminate('the test is done with it');
      await chat.handle.terminate('the test is done with it');
    });
  });
});
