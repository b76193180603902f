/**
 * What the chain's guards answer at each named point of the loop ({@link GuardPort} in `run.ts`):
 * go on, wait for approval, tell the model something and let it try again, give the agent a last
 * turn, or fail the run with a typed error. Declared in the kernel, so the steps that weigh a
 * verdict and the guards that give one (`guards/`) both read it from here.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalPolicy } from '../../src/common/approvals';
import type { ControlEvent } from '../../src/common/controls';
import type { BatonError } from '../../src/common/errors';
import type { ModelResponse } from '../../src/common/model';
import type { ChainEvent } from './events';

export type Verdict =
  | { kind: 'continue' }
  /** Before a handoff: it waits for a person's decision under this policy. */
  | { kind: 'wait'; policy: ApprovalPolicy }
  /**
   * Tell the model `message` (the handoff or delegation call's answer, or a user message after an
   * answer) and let it go on; `event` records the try, `control` what a control did.
   */
  | { kind: 'retry'; message: string; event?: ChainEvent; control?: ControlEvent }
  /** A budget ran out under `onBudgetExceeded: 'final_answer'`: the agent gets one last turn without tools, told `message`. */
  | { kind: 'last_turn'; message: string; control: Extract<ControlEvent, { kind: 'budget_exceeded' }> }
  | { kind: 'fail'; error: BatonError; control?: ControlEvent };

export const CONTINUE: Verdict = { kind: 'continue' };

/** An answer without tool calls: its text, and its check against the agent's `outputType` when it has one. */
export interface FinalAnswer {
  text: string;
  checked?: ModelResponse['output'];
}

/** A verdict that sends the final answer back to the model with `message`, counted for `guard`. */
export function refuseAnswer(guard: string, message: string): Verdict {
  return { kind: 'retry', message, event: { type: 'answer_refused', guard, message } };
}
