/**
 * What baton's two workflows share: the handlers of what arrives for a chain's approval desk and
 * its steering. Each reads its payload itself ({@link arrival}): a payload that is not JSON, or far
 * over its limit, reaches the desk or the validator as an `UnreadableArrival` and is refused like
 * any bad input, so no client can wedge or end a chain with what it sends.
 */
import { setHandler, type SignalDefinition } from '@temporalio/workflow';
import { LIMITS } from '../src/common/limits';
import {
  answerHandoffQuestionUpdate,
  approveHandoffSignal,
  askHandoffQuestionUpdate,
  childApprovalsSignal,
  decideHandoffUpdate,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  overrideRunSignal,
  rejectHandoffSignal,
  steerUpdate,
} from '../src/common/messages';
import type { SteerInput } from '../src/common/live';
import { arrival, rawArgs } from './arrivals';
import { noteUpdate } from './historyLimits';
import type { ApprovalDesk } from './chain/desk';
import type { Steering } from './live/steering';
import { quickSignal } from './quickSignals';

const DECISION = { field: 'decision', bytes: LIMITS.decisionBytes };
const STEER = { field: 'steer', bytes: LIMITS.messageBytes };
const QUESTION = { field: 'question', bytes: LIMITS.decisionBytes };

/** The `steer` update: a steering message, validated before it is accepted. */
export function receiveSteering(steering: Steering): void {
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
  signal(overrideRunSignal, (o) => desk.receiveOverrides(arrival(o, { field: 'overrides', bytes: LIMITS.optionsBytes })));
  signal(childApprovalsSignal, (report) => desk.receiveChildReport(arrival(report, { field: 'report', bytes: LIMITS.reportBytes })));
  signal(forwardDecisionSignal, (forwarded) => desk.receiveForwarded(arrival(forwarded, { field: 'forwarded decision', bytes: 2 * LIMITS.decisionBytes })));
  signal(forwardedOutcomeSignal, (outcome) => desk.receiveForwardOutcome(arrival(outcome, { field: 'forwarded outcome', bytes: 2 * LIMITS.decisionBytes })));
}

/** A request-info update: validated against what waits, queued for the loop, answered once applied. */
function question(def: typeof askHandoffQuestionUpdate | typeof answerHandoffQuestionUpdate, kind: 'ask' | 'answer', desk: ApprovalDesk): void {
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
