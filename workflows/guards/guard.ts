/**
 * Controls of a chain, as guards asked at named points of the loop. A guard answers
 * {@link Verdict}s (`chain/verdict.ts`): go on, wait for approval, tell the model something and
 * let it try again, or fail the run with a typed error. A new control is a new guard, not a new
 * branch in the loop.
 *
 * Deterministic: guards read the chain state and decide; they issue no commands.
 */
import type { HandoffResult } from '../../src/common/handoff';
import type { ModelResponse } from '../../src/common/model';
import type { ChainState } from '../../src/common/state';
import type { GuardPort } from '../chain/run';
import { CONTINUE, type FinalAnswer, type Verdict } from '../chain/verdict';

/** A control of the chain; each point it does not implement answers `continue`. */
export interface Guard {
  readonly name: string;
  /** Before each model call of the current agent. */
  beforeModelCall?(state: ChainState): Verdict;
  /** After each model answer, before its tools run. */
  afterModelResponse?(state: ChainState, response: ModelResponse): Verdict;
  /** Before a handoff goes ahead. */
  beforeHandoff?(state: ChainState, handoff: HandoffResult): Verdict;
  /** When an agent answers without tool calls, before the answer ends the chain. */
  onFinish?(state: ChainState, answer: FinalAnswer): Verdict;
  /** Before a task is delegated to specialist `to`. */
  beforeDelegation?(state: ChainState, to: string): Verdict;
  /** Once an answer passed every check (guardrails included), before it ends the chain. */
  onComplete?(state: ChainState): Verdict;
}

/** The guards of a run, asked in order; the first answer other than `continue` counts: the chain's {@link GuardPort}. */
export class Guards implements GuardPort {
  constructor(readonly list: readonly Guard[]) {}

  beforeModelCall(state: ChainState): Verdict {
    return this.first((g) => g.beforeModelCall?.(state));
  }

  afterModelResponse(state: ChainState, response: ModelResponse): Verdict {
    return this.first((g) => g.afterModelResponse?.(state, response));
  }

  beforeHandoff(state: ChainState, handoff: HandoffResult): Verdict {
    return this.first((g) => g.beforeHandoff?.(state, handoff));
  }

  onFinish(state: ChainState, answer: FinalAnswer): Verdict {
    return this.first((g) => g.onFinish?.(state, answer));
  }

  beforeDelegation(state: ChainState, to: string): Verdict {
    return this.first((g) => g.beforeDelegation?.(state, to));
  }

  onComplete(state: ChainState): Verdict {
    return this.first((g) => g.onComplete?.(state));
  }

  private first(ask: (g: Guard) => Verdict | undefined): Verdict {
    for (const guard of this.list) {
      const verdict = ask(guard);
      if (verdict && verdict.kind !== 'continue') return verdict;
    }
    return CONTINUE;
  }
}
