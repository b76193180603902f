/**
 * The chain state of a run at a chosen step, rebuilt from its history: what a replay with overrides
 * starts the new run from. The recorded events are folded through the loop's own reducers
 * (`workflows/chain/state.ts`); every model answer and tool result before that step comes from
 * history, and nothing is called again.
 */
import { currentAgent, reduce, startChain, type ChainEvent } from '../../workflows/chain/state';
import { planTurn } from '../../workflows/chain/turn';
import {
  activityName,
  brokenStep,
  lostWorkerRestarts,
  recordedApprovalEvent,
  recordedHandoff,
  withLocalActivities,
} from '../audit/history';
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import type { TeamPolicy } from '../common/authority/policyUpdate';
import { UserError } from '../common/errors';
import { ActivityType } from '../common/messages';
import type { CallModelInput, ModelResponse, SummarizeResult } from '../common/model';
import { resolveRunOptions } from '../common/options';
import type { HandoffRunInput, HandoffRunResult, RunOverrides } from '../common/run';
import type { ControlEvent } from '../common/controls';
import { routingKind } from '../common/routing';
import { initialControls } from '../../workflows/chain/controlState';
import { withEconomics } from '../../workflows/economics/costs';
import type { ChainState } from '../common/state';
import type { TeamSpec } from '../common/team';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import { decisionsOn, entryApproved, HOLDS_FROM_WHERE_APPLIED, type Recorded } from './carriedDecisions';

/** Where the rebuilt state resumes, and the state. */
export interface ResumePoint {
  from: string;
  state: ChainState;
  input: HandoffRunInput;
}

interface ModelCall {
  eventId: number;
  input: CallModelInput;
  result?: ModelResponse;
}

/**
 * Where a continued run that never made a model call resumes: the state it was handed, whole (a run
 * that failed as it started, e.g. on a state its worker did not understand). Approvals waiting in it
 * wait again, with their decisions already made.
 */
export const CARRIED = 'carried state';

/** Where a chain let in on its entry's approval resumes when its first model turn left nothing to resume from: that turn, the approval standing. */
export const ENTERED = 'entry';

/**
 * Rebuild the state just before the step to run again: the model turn that asked for handoff
 * `fromHandoff`; else a model call that failed; else right after the last model answer (a tool that
 * failed, a limit hit, a termination), so that answer is acted on again without asking the model;
 * else, in a continued run that made no model call, the state it was handed ({@link CARRIED}).
 */
export function rebuildState(recordedEvents: HistoryEvent[], fromHandoff?: number): ResumePoint {
  const events = withLocalActivities(recordedEvents);
  const input = fromPayloads<HandoffRunInput>(events[0]?.workflowExecutionStartedEventAttributes?.input);
  if (!input) throw new UserError('the run has no input to rebuild from');
  const { team, models, recorded } = readRun(events);
  const base = input.resume;
  if (!base && !team)
    throw new UserError(
      'the run never recorded its team snapshot, so it has no handoff to replay from; replay it without fromHandoff to start it again from its input',
    );

  let target: ModelCall | undefined;
  let after = false;
  let from: string;
  if (fromHandoff !== undefined) {
    const handoffs = recorded.filter((r) => r.event.type === 'handed_off');
    const offset = base?.chain.length ?? 0;
    const record = handoffs[fromHandoff - offset - 1];
    if (!record)
      throw new UserError(
        `fromHandoff must be ${offset + 1} to ${offset + handoffs.length} for this run, got ${fromHandoff}`,
      );
    target = models.filter((m) => m.eventId < record.eventId).at(-1);
    from = `handoff ${fromHandoff}`;
  } else {
    const broken = brokenStep(events);
    const failedModel =
      broken && activityName(broken) === ActivityType.CALL_MODEL
        ? models.find((m) => m.eventId === Number(broken.eventId))
        : undefined;
    target = failedModel ?? models.filter((m) => m.result !== undefined).at(-1);
    after = !failedModel;
    from = broken ? `failed ${activityName(broken)}` : 'last step';
  }
  if (!target && base && fromHandoff === undefined) {
    // What people and operators decided in this run stands: an approval it was handed and a person decided waits no more.
    let state: ChainState = { ...base, options: resolveRunOptions(base.options) };
    for (const r of recorded) if (HOLDS_FROM_WHERE_APPLIED.has(r.event.type)) state = reduce(state, r.event);
    // And so does what people decided on the calls of the answer it was handed, which it acted on.
    const handed = base.pendingResponse;
    const decided = handed && decisionsOn(handed, recorded, planTurn(handed.toolCalls, currentAgent(state)).handoff);
    if (decided) state = { ...state, decidedCalls: { ...state.decidedCalls, ...decided } };
    return { from: CARRIED, state, input };
  }
  // Entered on its approval, it failed in its first model turn, which left no input (a local call).
  const entered = !target && !base && fromHandoff === undefined && entryApproved(recorded);
  if (!target && !entered)
    throw new UserError(
      'the run ended before its first model turn, so it has no step to replay: start the chain again instead (a chain refused at its entry agent is started at an agent it may be entered at, or waits for the approval its entry needs)',
    );
  if (entered) from = ENTERED;

  const cut = target?.eventId ?? Number.POSITIVE_INFINITY;
  let state = base
    ? { ...base, options: resolveRunOptions(base.options) }
    : startChain(team!, input.agent, input.input, resolveRunOptions(input.options), input.context);
  // The run that continues has the controls; they count from the first run's start.
  if (!state.controls) state = { ...state, controls: initialControls(startedAt(events)) };
  // And its costs, counted from the first run's calls at the snapshot's prices.
  if (!state.economics) state = withEconomics(state);
  for (const r of recorded)
    if (r.eventId < cut || (after && r.eventId === cut && r.event.type === 'turn_started'))
      state = reduce(state, r.event);
  // A policy update (it only tightens) and an operator's override hold from where they were applied on,
  // whatever step the replay goes back to.
  for (const r of recorded)
    if (r.eventId >= cut && (r.event.type === 'policy_updated' || r.event.type === 'overridden'))
      state = reduce(state, r.event);
  if (target) {
    // The answer the run was handed, and the decisions on its calls, were acted on before its model calls.
    const { pendingResponse: _spent, decidedCalls: _used, ...rest } = state;
    state = rest;
  }
  // The conversation at the step is the one the model was given then; approvals still waiting
  // belong to the failed run (decisions taken on them are carried below, by the calls they decided).
  state = {
    ...state,
    ...(target ? { agentId: target.input.agentId, messages: target.input.messages } : {}),
    approvals: { ...state.approvals, pending: [] },
    continuedRuns: 0,
  };
  if (after && target?.result) {
    const { handoff } = planTurn(target.result.toolCalls, state.team.agents[target.input.agentId]);
    const decidedCalls = decisionsOn(
      target.result,
      recorded.filter((r) => r.eventId > cut),
      handoff,
    );
    state = { ...state, pendingResponse: target.result, ...(decidedCalls ? { decidedCalls } : {}) };
  }
  const { openTurn: _dropped, ...rest } = state;
  return { from, state: rest, input };
}

/** The input of a run that ended before it took its team snapshot (no step ran), or `undefined`. */
export function unstartedInput(recordedEvents: HistoryEvent[]): HandoffRunInput | undefined {
  const events = withLocalActivities(recordedEvents);
  const input = fromPayloads<HandoffRunInput>(events[0]?.workflowExecutionStartedEventAttributes?.input);
  return input && !input.resume && !readRun(events).team ? input : undefined;
}

/** The team snapshot, the model calls and the chain events a run's history recorded, in order. */
function readRun(events: HistoryEvent[]): { team?: TeamSpec; models: ModelCall[]; recorded: Recorded[] } {
  let team: TeamSpec | undefined;
  const models: ModelCall[] = [];
  const recorded: Recorded[] = [];
  const scheduled = new Map<string, { name?: string; call?: ModelCall }>();
  const children = new Map<string, string>();
  // A start a lost worker ended counts for nothing: its restart is the call.
  const lost = new Set(lostWorkerRestarts(events).values());
  for (const e of events) {
    const eventId = Number(e.eventId);
    const s = e.activityTaskScheduledEventAttributes;
    if (s && !lost.has(String(eventId))) {
      const name = activityName(e);
      const call =
        name === ActivityType.CALL_MODEL ? { eventId, input: fromPayloads<CallModelInput>(s.input)! } : undefined;
      scheduled.set(String(eventId), { name, call });
      if (call) {
        models.push(call);
        recorded.push({ eventId, event: { type: 'turn_started' } });
      }
    }
    const done = e.activityTaskCompletedEventAttributes;
    const activity = done ? scheduled.get(String(done.scheduledEventId)) : undefined;
    if (done && activity) {
      // Each completion counts at its call's place in history, where the loop counted it.
      const at = Number(done.scheduledEventId);
      if (activity.name === ActivityType.LOAD_TEAM) team = fromPayloads<TeamSpec>(done.result);
      if (activity.name === ActivityType.RUN_TOOL)
        recorded.push({ eventId: at, event: { type: 'tools_ran', count: 1 } });
      if (activity.name === ActivityType.SUMMARIZE_HANDOFF) {
        const result = fromPayloads<SummarizeResult>(done.result);
        if (result) recorded.push({ eventId: at, event: { type: 'model_used', usage: result.usage } });
      }
      if (activity.call) {
        activity.call.result = fromPayloads<ModelResponse>(done.result);
        recorded.push({ eventId: at, event: { type: 'model_responded', response: activity.call.result! } });
      }
    }
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child) children.set(String(eventId), fromPayloads<HandoffRunInput>(child.input)?.agent ?? '');
    const ended = childEnded(e, children);
    if (ended) recorded.push({ eventId, event: ended });
    const handoff = recordedHandoff(e);
    if (handoff) recorded.push({ eventId, event: { type: 'handed_off', record: handoff.handoff } });
    const approval = recordedApprovalEvent(e);
    const event = approval && approvalEvent(approval);
    if (event) recorded.push({ eventId, event });
  }
  // The loop applies a call's answer right after its call, before anything later in history.
  recorded.sort((a, b) => a.eventId - b.eventId);
  return { team, models, recorded };
}

/** A specialist's chain that ended, as the loop recorded it: its usage when it answered. */
function childEnded(e: HistoryEvent, children: Map<string, string>): ChainEvent | undefined {
  const done = e.childWorkflowExecutionCompletedEventAttributes;
  const failed =
    e.childWorkflowExecutionFailedEventAttributes ??
    e.childWorkflowExecutionTimedOutEventAttributes ??
    e.childWorkflowExecutionCanceledEventAttributes ??
    e.childWorkflowExecutionTerminatedEventAttributes;
  const initiated = String((done ?? failed)?.initiatedEventId ?? '');
  const agent = children.get(initiated);
  if (agent === undefined) return undefined;
  if (!done) return { type: 'delegation_ended', agent, ok: false };
  const result = fromPayloads<HandoffRunResult<unknown>>(done.result);
  return {
    type: 'delegation_ended',
    agent,
    ok: true,
    ...(result ? { usage: result.usage, ...(result.usageByAgent ? { usageByAgent: result.usageByAgent } : {}) } : {}),
  };
}

/** When the run started (ms). */
function startedAt(events: HistoryEvent[]): number {
  const t = events[0]?.eventTime;
  return t ? Number(t.seconds?.toString() ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

function approvalEvent({ type, ...fields }: { type: string } & Record<string, unknown>): ChainEvent | undefined {
  if (type === 'approval_requested') return { type, pending: fields as unknown as PendingApproval };
  if (type === 'approval_decided') return { type, record: fields as unknown as ApprovalRecord };
  if (type === 'overrides_applied') return { type: 'overridden', overrides: fields as RunOverrides };
  if (type === 'policy_updated') return { type: 'policy_updated', policy: fields.policy as TeamPolicy };
  // A routing strategy's place (the round robin's) goes on from where the run left it.
  if (type === 'routing_decided' && typeof fields.specialistType === 'string')
    return { type: 'routed', kind: routingKind(fields.specialistType) };
  if (type === 'control') {
    const { control, at, ...rest } = fields as { control: ControlEvent['kind']; at: string };
    return { type: 'control', event: { kind: control, ...rest } as ControlEvent, at: Date.parse(at) };
  }
  return undefined;
}
