/**
 * Conversations moved onto the current team, and conversations whose run failed continued: what
 * `baton replay [--on-current-team] <conversationId>` does. A running conversation is moved in
 * place (the `migrateConversation` update): a turn stranded by a deploy goes on from its last step
 * on the team the workers run now, the decisions made in it standing; between turns, the next turn
 * takes that team. A conversation whose run failed (a state its worker did not understand, a
 * defect since fixed) continues in a new run of the same id from the state that run was handed.
 */
import { type Client, WorkflowIdReusePolicy } from '@temporalio/client';
import { runStartOptions } from './runStart';
import type { conversation as conversationWorkflow } from '../../workflows/conversation';
import type { ConversationInput } from '../common/conversation';
import { UserError } from '../common/errors';
import { migrateConversationUpdate, REPLAY_OF_MEMO, WorkflowType } from '../common/messages';
import type { ConversationMigration } from '../common/stranded';
import { decodeHistory } from '../payloads/history';
import { fromPayloads } from '../payloads/read';
import { conversationError, endedIfClosed, nextRun, sendAgain } from './conversationErrors';
import { historyOf } from '../payloads/historyPages';

/** Options of `baton.replayConversation`. */
export interface ConversationReplayOptions {
  /**
   * Go on with the team the workers run now: a turn waiting for a worker of its team goes on from
   * its last step on the current team (decisions made in it stand); else the next turn takes it.
   * @default false
   */
  onCurrentTeam?: boolean;
}

/** What a conversation replay did. */
export interface ConversationReplayed {
  workflowId: string;
  /** The run that goes on: the running one (`migrate`), or a new one (`resume`). */
  runId: string;
  /** `migrate`: the running conversation moved onto the current team; `resume`: a new run continues a failed one. */
  mechanism: 'migrate' | 'resume';
  /** The failed run a new run continues (`resume`). */
  baseRunId?: string;
  /** The migration, when the conversation moved onto the current team. */
  migration?: ConversationMigration;
}

/** Move a running conversation (`onCurrentTeam`), or continue one whose run failed. */
export async function replayConversation(
  client: Client,
  workflowId: string,
  options: ConversationReplayOptions = {},
): Promise<ConversationReplayed> {
  const handle = client.workflow.getHandle<typeof conversationWorkflow>(workflowId);
  const description = await handle.describe();
  if (description.type !== WorkflowType.CONVERSATION)
    throw new UserError(
      `${workflowId} is a ${description.type} workflow, not a conversation: replay it with baton.replay`,
    );
  const status = description.status.name;
  if (status === 'RUNNING') {
    if (!options.onCurrentTeam)
      throw new UserError(
        `conversation ${workflowId} is running: to move it onto the team the workers run now, replay it with onCurrentTeam (--on-current-team)`,
      );
    const migration = await migrateConversation(client, workflowId);
    return { workflowId, runId: description.runId, mechanism: 'migrate', migration };
  }
  if (status === 'COMPLETED' || status === 'CONTINUED_AS_NEW')
    throw new UserError(
      `conversation ${workflowId} ${status === 'COMPLETED' ? 'has ended' : 'goes on in a newer run'}: there is nothing to continue`,
    );
  const history = await decodeHistory(
    await historyOf(client, workflowId, description.runId),
    client.options.loadedDataConverter.payloadCodecs,
  );
  const input = fromPayloads<ConversationInput>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
  if (!input) throw new UserError(`conversation ${workflowId} has no input to continue from`);
  const origin = { workflowId, runId: description.runId, from: input.resume ? 'carried state' : 'start' };
  const started = await client.workflow.start<typeof conversationWorkflow>(WorkflowType.CONVERSATION, {
    taskQueue: description.taskQueue,
    workflowId,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    args: [input],
    memo: { [REPLAY_OF_MEMO]: origin },
    ...runStartOptions({
      agent: input.resume?.chain.agentId ?? input.agent,
      handoffs: input.resume?.handoffs ?? 0,
      priority: input.resume?.chain.options.priority ?? input.options?.priority,
    }),
  });
  // The new run takes the current team before its next step that needs one, or at once when stranded.
  const migration = options.onCurrentTeam ? await migrateConversation(client, workflowId) : undefined;
  return {
    workflowId,
    runId: started.firstExecutionRunId,
    mechanism: 'resume',
    baseRunId: description.runId,
    ...(migration ? { migration } : {}),
  };
}

/** Move the running conversation `workflowId` onto the team the workers run now; resolves once moved. */
export async function migrateConversation(client: Client, workflowId: string): Promise<ConversationMigration> {
  for (let hop = 0, since = Date.now(); ; hop++) {
    try {
      return await client.workflow
        .getHandle<typeof conversationWorkflow>(workflowId)
        .executeUpdate(migrateConversationUpdate);
    } catch (err) {
      if (!sendAgain(err, since)) throw await endedIfClosed(client, workflowId, conversationError(err));
      await nextRun(hop);
    }
  }
}
