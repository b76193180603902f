/** The step union the loop dispatches on, and how a step's verdicts and hand-over are weighed (`run.ts`: what every step works with). */
import type { ApprovalRecord } from '../../src/common/approvals';
import type { HandoffResult } from '../../src/common/handoff';
import type { ModelResponse, ToolCall } from '../../src/common/model';
import type { ToolResultRecord } from '../../src/common/run';
import { recordControl } from './controls';
import type { ChainRun } from './run';
import type { TurnPlan } from './turn';
import type { FinalAnswer, Verdict } from './verdict';

export type { ChainRun } from './run';

/** A turn whose tools have run, with its handoff and delegations still to weigh. */
export interface TurnInProgress {
  calls: ToolCall[];
  plan: TurnPlan;
  /** Answers so far, by call id. */
  results: [string, string][];
  handoffInputs?: ModelResponse['handoffInputs'];
}

/** What a model turn leads to. */
export type Step =
  | { kind: 'final_output'; answer: FinalAnswer }
  /** Tasks for specialists, run as child chains; the turn goes on with their answers. */
  | ({ kind: 'delegate' } & TurnInProgress)
  | { kind: 'handoff'; handoff: HandoffResult; approval?: ApprovalRecord; toolResults: ToolResultRecord[] }
  | { kind: 'run_again' }
  | { kind: 'paused' };

export const RUN_AGAIN: Step = { kind: 'run_again' };

/**
 * Whether the run should continue as new now: see `ChainEffects.shouldContinueAsNew`. A run
 * that has made no step of its own yet (`progressed` false) does so only before Temporal's limits
 * (runs with the `baton-inbox-bounds` patch), so a small `continueAsNewAfterEvents` cannot spin.
 */
export function handOverDue(run: Pick<ChainRun, 'chain' | 'effects' | 'desk'>, progressed = true): boolean {
  const { chain, effects, desk } = run;
  if (!progressed && !desk.inboxBounds) return false;
  return effects.shouldContinueAsNew(progressed ? chain.state.options.continueAsNewAfterEvents : 0, desk.inboxBounds);
}

/**
 * Apply a guard's verdict: `true` when the model is to be told something and go on (a retry, or
 * its last turn once a budget ran out), throws on `fail`. What a control did goes on the record
 * either way.
 */
export function retried(run: ChainRun, verdict: Verdict): verdict is Extract<Verdict, { kind: 'retry' | 'last_turn' }> {
  if ((verdict.kind === 'fail' || verdict.kind === 'retry' || verdict.kind === 'last_turn') && verdict.control)
    recordControl(run, verdict.control);
  if (verdict.kind === 'fail') throw verdict.error;
  if (verdict.kind === 'last_turn') return true;
  if (verdict.kind !== 'retry') return false;
  if (verdict.event) run.chain.apply(verdict.event);
  return true;
}
