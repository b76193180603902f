/**
 * What the conversation turns test (turns.test.ts) runs on: its teams, and the calls a plain
 * Temporal client makes to a conversation: a message sent with update-with-start, a refused
 * update read as its failure's `type: message`, and the failure type a run ended with.
 */
import {
  type ApplicationFailure,
  type Client,
  WithStartWorkflowOperation,
  type WorkflowFailedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { expect } from 'vitest';
import { scripted, Team } from '../../src';
import { sendMessageUpdate, WorkflowType } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';

/** triage hands to refunds on turn 2, refunds to sales on turn 4; each answers the turns between. */
export function supportTeam(): Team {
  return new Team([
    scriptedAgent('triage', [
      { text: 'Hello, how can I help?' },
      { handoff: { to: 'refunds', message: 'customer wants a refund' } },
    ]),
    scriptedAgent('refunds', [
      { text: 'Refund for 42 started.' },
      { text: 'It is on its way.' },
      { handoff: { to: 'sales', message: 'wants an upgrade' } },
    ]),
    scriptedAgent('sales', [{ text: 'Upgrade ready.' }, { text: 'Goodbye!' }]),
  ]);
}

/** An agent that answers every message with `echo <its turn>`, however many come. */
export function defineEcho() {
  const steps = Array.from({ length: 4 }, (_, i) => ({ text: `echo ${i + 1}` }));
  return scriptedAgent('echo', [], { model: scripted({ steps, requireAllSteps: false }) });
}

/** Send `message` to conversation `workflowId` from a plain client, starting it (with `input`, solo's by default) if it does not run. */
export function sendWithStart(
  client: Client,
  o: {
    workflowId: string;
    taskQueue: string;
    message: string;
    input?: unknown;
    workflowIdReusePolicy?: 'REJECT_DUPLICATE';
  },
) {
  return client.workflow.executeUpdateWithStart(sendMessageUpdate, {
    args: [{ message: o.message }],
    startWorkflowOperation: new WithStartWorkflowOperation(WorkflowType.CONVERSATION, {
      workflowId: o.workflowId,
      taskQueue: o.taskQueue,
      args: [(o.input ?? { agent: 'solo' }) as never],
      workflowIdConflictPolicy: 'USE_EXISTING',
      ...(o.workflowIdReusePolicy ? { workflowIdReusePolicy: o.workflowIdReusePolicy } : {}),
    }),
  });
}

/** The `type: message` of the failure an update that must be refused was refused with. */
export async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (err as WorkflowUpdateFailedError).cause as ApplicationFailure;
  return `${cause.type}: ${cause.message}`;
}

/** The failure type run `workflowId` ended with. */
export async function runFailureType(client: Client, workflowId: string) {
  const failed = await client.workflow
    .getHandle(workflowId)
    .result()
    .catch((e: unknown) => e);
  return ((failed as WorkflowFailedError).cause as ApplicationFailure).type;
}
