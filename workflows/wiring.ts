/**
 * What baton's two workflows share: the ports a chain works through (its effects, its steering and
 * approval desks), the handlers of what arrives for them, the queries every chain answers, the
 * search attributes of the next run and how an error leaves the workflow. Each handler reads its
 * payload itself ({@link arrival}): a payload that is not JSON, or far over its limit, reaches the
 * desk or the validator as an `UnreadableArrival` and is refused like any bad input, so no client
 * can wedge or end a chain with what it sends.
 */
import { TemporalFailure } from '@temporalio/common';
import { isCancellation, setHandler, type SignalDefinition, workflowInfo } from '@temporalio/workflow';
import { BatonError, toApplicationFailure, UnexpectedWorkflowError } from '../src/common/errors';
import { LIMITS } from '../src/common/limits';
import {
  answerHandoffQuestionUpdate,
  approveHandoffSignal,
  askHandoffQuestionUpdate,
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  chainQuery,
  childApprovalsSignal,
  decideHandoffUpdate,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  overrideRunSignal,
  pendingApprovalsQuery,
  rejectHandoffSignal,
  statusQuery,
  steerUpdate,
} from '../src/common/messages';
import type { SteerInput } from '../src/common/live';
import type { StreamTag } from '../src/common/model';
import { BatonStatus } from '../src/common/run';
import type { ChainState } from '../src/common/state';
import { arrival, rawArgs } from './arrivals';
import { noteUpdate } from './historyLimits';
import { notifyingEffects, notifyingPorts } from './approvals/notify';
import { policyClock } from './approvals/policies';
import { requestInfo } from './approvals/requestInfo';
import { withApprovalAttributes } from './approvals/searchAttributes';
import { ApprovalDesk } from './chain/desk';
import type { DeskOptions } from './chain/deskOptions';
import type { ChainEffects } from './chain/effects';
import { withSpecialistFigures } from './chain/figures';
import { boundingPayloads } from './chain/payloadBound';
import type { Chain } from './chain/state';
import { temporalEffects } from './chain/temporalEffects';
import { interruptible, Steering } from './live/steering';
import { quickSignal } from './quickSignals';
import { taggingStreams } from './streams/tag';
import { matchingTeam, type TeamSource } from './team/match';
import { teamAttribute } from './team/record';
import { tenantAttribute } from './tenant';
import { variantAttribute } from './variant';

/** What a workflow's chain works through. */
export interface ChainPorts {
  /** Temporal's effects, with the team check, bounded payloads, specialists' figures, stream tags and (chains that take steering) model calls an interrupt can stop. */
  effects: ChainEffects;
  steering: Steering;
  desk: ApprovalDesk;
}

/**
 * Build the ports of the chain `chain()` returns once it exists, and register the `steer` update
 * (before the desk's handlers, as the workflows always have: buffered messages are delivered in
 * the order handlers are registered).
 */
export function chainPorts(o: {
  chain: () => Chain | undefined;
  /** Runs started with `baton-run-v2`. */
  v2: boolean;
  /** How the team check waits and reports, besides the chain's state. */
  team: Omit<TeamSource, 'state'>;
  /** Where a model call's text streams, if anywhere. */
  tag: () => StreamTag | undefined;
  /** Whether model calls can be interrupted (the `baton-live` patch). */
  live: boolean;
  /** Why a steering message is refused now, or `undefined` when the chain takes it. */
  steeringRefusal: () => string | undefined;
  desk: Omit<DeskOptions, 'clock' | 'questions'>;
}): ChainPorts {
  const state = () => o.chain()?.state;
  const matched = matchingTeam(
    withApprovalAttributes(temporalEffects(o.v2), () => state()?.team),
    { state, ...o.team },
  );
  const tagged = taggingStreams(
    boundingPayloads(withSpecialistFigures(matched), () => state()?.team),
    o.tag,
  );
  const steering = new Steering(workflowInfo().workflowId, tagged, o.steeringRefusal);
  const effects = o.live ? interruptible(tagged, steering) : tagged;
  receiveSteering(steering);
  const desk = new ApprovalDesk(notifyingEffects(effects, state), {
    ...o.desk,
    clock: policyClock(notifyingPorts(effects, state)),
    questions: requestInfo,
  });
  return { effects, steering, desk };
}

/** The queries every chain answers: its handoffs, the approvals waiting in its tree, its status (`handoffs` counts them as the workflow does). */
export function answerChainQueries(o: {
  chain: () => Chain | undefined;
  ports: Pick<ChainPorts, 'effects' | 'desk'>;
  rawInput: unknown;
  handoffs: () => number;
}): void {
  const { effects, desk } = o.ports;
  setHandler(chainQuery, () => o.chain()?.state.chain ?? []);
  setHandler(pendingApprovalsQuery, () => desk.pendingInTree());
  setHandler(statusQuery, () => ({
    status: effects.status,
    currentAgent: o.chain()?.state.agentId ?? startAgentOf(o.rawInput),
    handoffs: o.handoffs(),
    turns: o.chain()?.state.turns ?? 0,
    pendingApprovals: desk.pendingInTree(),
  }));
}

/** The search attributes a run continued as new starts with: `next`'s agent, running, `handoffs`, its team, and this run's variant and tenant. */
export function nextRunAttributes(next: ChainState, handoffs: number) {
  return [
    { key: BatonAgent, value: next.agentId },
    { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
    { key: BatonHandoffs, value: handoffs },
    ...teamAttribute(next.team),
    ...variantAttribute(),
    ...tenantAttribute(),
  ];
}

/** How an error leaves the workflow: baton's errors typed, Temporal's as they are, anything else as a defect. */
export function failureOf(err: unknown): unknown {
  if (err instanceof BatonError) return toApplicationFailure(err);
  if (err instanceof TemporalFailure || isCancellation(err)) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  return toApplicationFailure(new UnexpectedWorkflowError(e.name, e.message, e.stack));
}

/** The agent a start names, before its input is validated; `''` when it names none. */
export function startAgentOf(raw: unknown): string {
  const agent = (raw as { agent?: unknown } | null)?.agent;
  return typeof agent === 'string' ? agent : '';
}

const DECISION = { field: 'decision', bytes: LIMITS.decisionBytes };
const STEER = { field: 'steer', bytes: LIMITS.messageBytes };
const QUESTION = { field: 'question', bytes: LIMITS.decisionBytes };

/** The `steer` update: a steering message, validated before it is accepted. */
function receiveSteering(steering: Steering): void {
  setHandler(
    rawArgs(steerUpdate),
    (s) => {
      noteUpdate();
      return steering.receive(arrival(s, STEER) as SteerInput);
    },
    { validator: (s) => steering.validate(arrival(s, STEER)) },
  );
}

/**
 * The desk's signals and update, in the order the workflows have always registered them (the order
 * buffered signals are delivered in): decisions, overrides, specialists' reports, forwarded decisions and their outcomes.
 */
export function receiveDecisions(desk: ApprovalDesk): void {
  signal(approveHandoffSignal, (d) => desk.receive(arrival(d, DECISION), 'approve'));
  signal(rejectHandoffSignal, (d) => desk.receive(arrival(d, DECISION), 'reject'));
  setHandler(
    rawArgs(decideHandoffUpdate),
    (d) => {
      noteUpdate();
      return desk.receiveUpdate(arrival(d, DECISION));
    },
    { validator: (d) => desk.validate(arrival(d, DECISION)) },
  );
  question(askHandoffQuestionUpdate, 'ask', desk);
  question(answerHandoffQuestionUpdate, 'answer', desk);
  signal(overrideRunSignal, (o) =>
    desk.receiveOverrides(arrival(o, { field: 'overrides', bytes: LIMITS.optionsBytes })),
  );
  signal(childApprovalsSignal, (report) =>
    desk.receiveChildReport(arrival(report, { field: 'report', bytes: LIMITS.reportBytes })),
  );
  signal(forwardDecisionSignal, (forwarded) =>
    desk.receiveForwarded(arrival(forwarded, { field: 'forwarded decision', bytes: 2 * LIMITS.decisionBytes })),
  );
  signal(forwardedOutcomeSignal, (outcome) =>
    desk.receiveForwardOutcome(arrival(outcome, { field: 'forwarded outcome', bytes: 2 * LIMITS.decisionBytes })),
  );
}

/** A request-info update: validated against what waits, queued for the loop, answered once applied. */
function question(
  def: typeof askHandoffQuestionUpdate | typeof answerHandoffQuestionUpdate,
  kind: 'ask' | 'answer',
  desk: ApprovalDesk,
): void {
  setHandler(
    rawArgs(def as typeof askHandoffQuestionUpdate),
    (q) => {
      noteUpdate();
      return desk.receiveQuestion(kind, arrival(q, QUESTION));
    },
    { validator: (q) => desk.questions.validate(kind, arrival(q, QUESTION)) },
  );
}

/** A signal whose handler only queues: taken on the quick path where the bundle has it (`quickSignals.ts`), its payload read by the handler. */
function signal(def: { name: string; type: 'signal' }, handler: (raw: unknown) => void): void {
  quickSignal(def.name, handler);
  setHandler(rawArgs(def as SignalDefinition<[unknown]>), handler);
}
