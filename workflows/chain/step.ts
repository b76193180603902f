/** The step union the loop dispatches on (`run.ts`: what every step works with). */
import type { ApprovalRecord } from '../../src/common/approvals';
import type { HandoffResult } from '../../src/common/handoff';
import type { ModelResponse, ToolCall } from '../../src/common/model';
import type { ToolResultRecord } from '../../src/common/run';
import type { TurnPlan } from './turn';
import type { FinalAnswer } from './verdict';

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
