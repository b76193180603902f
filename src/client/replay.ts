/**
 * Continue a failed chain from its last good step. Without overrides this is Temporal's reset: the
 * new run keeps the history before the reset point, so completed model calls and tool calls are
 * replayed from history instead of running again. With overrides, a new run of the same workflow id
 * starts from the loop state rebuilt from that history, with the overrides applied.
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { reduce } from '../../workflows/chain/state';
import { activityName, brokenStep, recordedHandoff, withLocalActivities } from '../audit/history';
import { UserError } from '../common/errors';
import { overrideProblems } from '../common/input';
import { ActivityType } from '../common/messages';
import type { HandoffRunInput, RunOverrides } from '../common/run';
import type { ChainState } from '../common/state';
import { decodeHistory } from '../payloads/history';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import { droppedDecisions } from './droppedDecisions';
import { migrationRequest } from './migrate';
import { rebuildState, unstartedInput } from './resume';
import { replayAfresh, startReplayRun } from './replayAfresh';
import { historyOf } from '../payloads/historyPages';
const EventType = temporal.api.enums.v1.EventType;

/** Options of `baton.replay`. */
export interface ReplayOptions {
  /** Continue from just before the model turn that asked for handoff N (1-based), instead of from the failure. */
  fromHandoff?: number;
  /** Changes for the continued run: limits and other run options, models by agent. */
  overrides?: RunOverrides;
  /** Why, for the history. @default "baton replay" */
  reason?: string;
  /**
   * Go on with the team the workers run now instead of the one the chain started with: a chain that
   * failed with `TeamMismatchError` (its team is on no worker any more) continues from its last good
   * step on the current team, the migration on the record (`team support@v1 → support@v2`). Decisions
   * people made on the step's tool calls stand; a call of a renamed tool is made by its new name;
   * when the current team lacks the agent the chain stands at, the chain goes back to the turn that
   * handed off to it, and the model is told that handoff could not go on.
   * @default false
   */
  onCurrentTeam?: boolean;
}

/** Where a reset replay starts. */
export interface ReplayPlan {
  /** The run continued from. */
  baseRunId: string;
  /** The workflow task completion the new run resets to. */
  resetEventId: number;
  /** What the reset point is: `failure` or `handoff N`. */
  from: string;
}

/** The run a replay created. */
export interface ReplayStarted {
  workflowId: string;
  /** The new run. */
  runId: string;
  /** The run continued from. */
  baseRunId: string;
  /** Where the new run picks up: `failed callModel`, `failed runTool`, `last step`, `handoff N`, `carried state` (a continued run that failed as it started), `entry` (a chain let in on its entry's approval whose first model turn left nothing to resume from: that turn again), or `start` (a chain that ended before its first step starts again from its input). */
  from: string;
  /** `reset`: Temporal reset, the prefix kept in the new run's history; `resume`: a new run started from the rebuilt state (with overrides, onto the current team, or where a reset would drop a person's decision). */
  mechanism: 'reset' | 'resume';
  /** The team the chain ran on, when the replay moves it onto the current team. */
  migratedFrom?: string;
}

/** The statuses a chain can be replayed from without `fromHandoff`. */
const REPLAYABLE = new Set(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED']);

export async function replayChain(
  client: Client,
  workflowId: string,
  options: ReplayOptions = {},
): Promise<ReplayStarted> {
  checkOverrides(options.overrides, undefined);
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const status = description.status.name;
  if (status === 'RUNNING')
    throw new UserError(`chain ${workflowId} is still running; replay continues chains that ended`);
  if (options.fromHandoff === undefined && !REPLAYABLE.has(status)) {
    throw new UserError(
      `chain ${workflowId} ${status.toLowerCase()}; replay it from a handoff (fromHandoff) or pick a failed chain`,
    );
  }
  const history = await decodeHistory(
    await historyOf(client, workflowId, description.runId),
    client.options.loadedDataConverter.payloadCodecs,
  );
  const events = withLocalActivities(history.events ?? []);
  // Ended before its first step: nothing to continue, so it starts again (on the current team).
  const unstarted = options.fromHandoff === undefined ? unstartedInput(events) : undefined;
  if (unstarted) return replayAfresh(client, description, unstarted, options.overrides);
  if (options.overrides || options.onCurrentTeam) return resumeWithOverrides(client, description, events, options);
  const plan = planReplay(events, description.runId, options.fromHandoff);
  // A reset would drop a person's decision on an approval asked before its point: resume, which carries it.
  const dropped = droppedDecisions(events, plan.resetEventId);
  const refusedEntry = dropped.find((d) => d.entry && d.outcome === 'rejected');
  if (refusedEntry)
    throw new UserError(
      `chain ${workflowId} ended when ${refusedEntry.approver ?? 'an approver'} rejected its entry (approval ${refusedEntry.handoffId}); a replay would put its entry to people again and set that rejection aside, so it is refused: start a new chain to ask again`,
    );
  if (dropped.length > 0) return resumeWithOverrides(client, description, events, options);
  const response: temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse =
    await client.workflowService.resetWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId, runId: plan.baseRunId },
      reason: options.reason ?? `baton replay from ${plan.from}`,
      workflowTaskFinishEventId: plan.resetEventId as never,
      requestId: randomUUID(),
      // Nothing sent to the old run after the point is reapplied: decisions on approvals it asked
      // before it went the resume way above, and what else it got belongs to steps the new run runs again.
      resetReapplyExcludeTypes: [
        temporal.api.enums.v1.ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL,
        temporal.api.enums.v1.ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE,
      ],
    });
  return { workflowId, runId: response.runId ?? '', baseRunId: plan.baseRunId, from: plan.from, mechanism: 'reset' };
}

/**
 * With overrides, a reset cannot carry them into the new run atomically (the server refuses a
 * post-reset signal), so the new run starts from the state rebuilt from history, with the overrides
 * applied: a new run of the same workflow id, its memo naming the run it continues.
 */
async function resumeWithOverrides(
  client: Client,
  description: WorkflowExecutionDescription,
  events: HistoryEvent[],
  options: ReplayOptions,
): Promise<ReplayStarted> {
  const { workflowId, runId: baseRunId } = description;
  const rebuilt = rebuildState(events, options.fromHandoff);
  const { input, from } = rebuilt;
  const overrides = options.overrides ?? {};
  checkOverrides(overrides, Object.keys(rebuilt.state.team.agents));
  const migrate = options.onCurrentTeam ? { migrate: migrationRequest(rebuilt.state, events) } : {};
  const state = {
    ...reduce(rebuilt.state, { type: 'overridden', overrides }),
    replayOf: { workflowId, runId: baseRunId, from },
    ...migrate,
  };
  const runId = await startReplayRun(client, description, {
    input: continuedInput(input, overrides, state),
    replayOf: state.replayOf,
    agent: state.agentId,
    handoffs: state.chain.length,
    options: state.options,
  });
  return {
    workflowId,
    runId,
    baseRunId,
    from,
    mechanism: 'resume',
    ...(state.migrate ? { migratedFrom: state.migrate.from } : {}),
  };
}

/**
 * The new run's input: the request, the run options as given with the overrides over them, and
 * the run's context, so what reads the run's input (an eval, a dataset line, a further replay) sees
 * what the chain runs with, and the carried state.
 */
function continuedInput(input: HandoffRunInput, overrides: RunOverrides, state: ChainState): HandoffRunInput {
  const options = { ...input.options, ...overrides.options };
  const context = state.context ?? input.context;
  return {
    agent: input.agent,
    input: input.input,
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(context ? { context } : {}),
    resume: state,
  };
}

/**
 * Find the reset point: the workflow task completed just before the step to run again. That step is
 * the model turn that asked for handoff `fromHandoff`, or else the activity that failed (or never
 * finished), or else the last workflow task (a limit hit, a termination, a timeout).
 */
export function planReplay(events: HistoryEvent[], baseRunId: string, fromHandoff?: number): ReplayPlan {
  let step: HistoryEvent | undefined;
  let from = 'failure';
  if (fromHandoff !== undefined) {
    const records = events.flatMap((e) => {
      const input = recordedHandoff(e);
      return input ? [{ eventId: Number(e.eventId), index: input.index }] : [];
    });
    const record = records.find((r) => r.index === fromHandoff);
    if (!record) throw new UserError(missingHandoff(events, records, fromHandoff));
    step = events
      .filter((e) => activityName(e) === ActivityType.CALL_MODEL && Number(e.eventId) < record.eventId)
      .at(-1);
    from = `handoff ${fromHandoff}`;
  } else {
    step = brokenStep(events);
    if (step) from = `failed ${activityName(step) ?? 'activity'}`;
  }
  const before = step ? Number(step.eventId) : Number.POSITIVE_INFINITY;
  const completed = events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && Number(e.eventId) < before,
  );
  const point = completed.at(-1);
  if (!point) throw new UserError('the chain has no completed step to continue from');
  return { baseRunId, resetEventId: Number(point.eventId), from };
}

/** The refusal of a `fromHandoff` the latest run does not record: the handoffs it does, and, when it carries state, why the earlier ones are out of reach. */
function missingHandoff(events: HistoryEvent[], records: { index: number }[], fromHandoff: number): string {
  // A run that carries state (a continue-as-new, a replay's run) holds only the handoffs made since.
  const carried = !!fromPayloads<HandoffRunInput>(events[0]?.workflowExecutionStartedEventAttributes?.input)?.resume;
  const earlier = carried ? ' (the earlier ones are in the runs before it, which a replay cannot reset)' : '';
  if (records.length === 0)
    return `the chain's latest run records no handoff${earlier}, so fromHandoff ${fromHandoff} names none to replay from`;
  return `chain has ${records.length} handoff(s) in its latest run; fromHandoff must be ${records[0]!.index} to ${records.at(-1)!.index}${earlier}, got ${fromHandoff}`;
}

function checkOverrides(o: RunOverrides | undefined, agents: string[] | undefined): void {
  if (o === undefined) return;
  const problems = overrideProblems(o, agents);
  if (problems.length > 0) throw new UserError(`Invalid replay overrides: ${problems.join('; ')}`);
}
