/**
 * The replay of a chain that ended before its first step (before it took its team snapshot: no
 * worker of its team took it in `teamMismatchTimeout`, or it was terminated or timed out first).
 * Nothing ran, so there is no state to continue from: a new run of the same workflow id starts
 * from the chain's input, with the overrides' options over its own and the memo `batonReplayOf`
 * naming the run it replays. Also how every replay that is not a reset starts its new run
 * ({@link startReplayRun}).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { runStartOptions } from './runStart';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { handoffRun } from '../../workflows/handoffRun';
import { UserError } from '../common/errors';
import { REPLAY_OF_MEMO, WorkflowType } from '../common/messages';
import type { RunOptions } from '../common/options';
import { type HandoffRunInput, type RunOverrides } from '../common/run';

/** Where a replay of a chain that never started picks up. */
export const AFRESH = 'start';

/** What a replay of a chain that never started reports (a `ReplayStarted`). */
export interface StartedAfresh {
  workflowId: string;
  runId: string;
  baseRunId: string;
  from: typeof AFRESH;
  mechanism: 'resume';
}

/** Start the chain `description` names again from `input`, its first run's, with `overrides`. */
export async function replayAfresh(
  client: Client,
  description: WorkflowExecutionDescription,
  input: HandoffRunInput,
  overrides: RunOverrides = {},
): Promise<StartedAfresh> {
  const { workflowId, runId: baseRunId } = description;
  if (overrides.models && Object.keys(overrides.models).length > 0)
    throw new UserError(
      `chain ${workflowId} ended before its first step, so it has no team to change models in; replay it with options only, or start it again`,
    );
  const options = { ...input.options, ...overrides.options };
  const runId = await startReplayRun(client, description, {
    input: {
      agent: input.agent,
      input: input.input,
      ...(Object.keys(options).length > 0 ? { options } : {}),
      ...(input.context ? { context: input.context } : {}),
      ...(input.parent ? { parent: input.parent } : {}),
    },
    replayOf: { workflowId, runId: baseRunId, from: AFRESH },
    agent: input.agent,
    handoffs: 0,
    options,
  });
  return { workflowId, runId, baseRunId, from: AFRESH, mechanism: 'resume' };
}

/** What a replay's new run starts with, besides its workflow id and task queue. */
export interface ReplayRun {
  input: HandoffRunInput;
  /** The memo `batonReplayOf`: the run it replays and where it picks up. */
  replayOf: { workflowId: string; runId: string; from: string };
  /** Its search attributes: the agent it stands at and the handoffs made so far. */
  agent: string;
  handoffs: number;
  /** The run options it runs with (priority, tenant). */
  options: RunOptions;
}

/** Start a replay's new run of the chain `description` names (the same workflow id, on its task queue); its run id. */
export async function startReplayRun(
  client: Client,
  description: WorkflowExecutionDescription,
  run: ReplayRun,
): Promise<string> {
  const handle = await client.workflow.start<typeof handoffRun>(WorkflowType.HANDOFF_RUN, {
    taskQueue: description.taskQueue,
    workflowId: description.workflowId,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    args: [run.input],
    memo: { [REPLAY_OF_MEMO]: run.replayOf },
    ...runStartOptions({
      agent: run.agent,
      handoffs: run.handoffs,
      priority: run.options.priority,
      tenant: run.options.tenant,
    }),
  });
  return handle.firstExecutionRunId;
}
