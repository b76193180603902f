/**
 * The handoff loop: a small dispatcher over {@link Step}s. Each step is a transition of the chain
 * state (`chain/state.ts`), every command goes through the effects port (`chain/effects.ts`), and
 * every control is a guard asked at a named point (`guards/`).
 */
import type { HandoffRunResult } from '../src/common/run';
import { delegateStep } from './chain/delegate';
import { handOff } from './chain/handoff';
import { finishTurn, respond, turn } from './chain/respond';
import { resultOf } from './chain/state';
import { type ChainRun, retried, RUN_AGAIN, type Step } from './chain/step';
import type { FinalAnswer } from './guards';

export type { ChainRun, Step } from './chain/step';

/** How a run of the loop ends: the chain's answer, or a hand-over to a fresh run. */
export type ChainOutcome = { kind: 'completed'; result: HandoffRunResult<unknown> } | { kind: 'continue_as_new' };

/** Run the chain until an agent answers, or until the run should continue as new. */
export async function runChain(run: ChainRun): Promise<ChainOutcome> {
  const { chain, effects, guards, desk } = run;
  let step = await firstStep(run);
  // A run continues as new only after a step of its own, so a tiny history limit cannot spin.
  let progressed = false;
  for (;;) {
    switch (step.kind) {
      case 'final_output': {
        const verdict = guards.onFinish(chain.state, step.answer);
        if (!retried(run, verdict)) return { kind: 'completed', result: resultOf(chain.state, valueOf(step.answer)) };
        break;
      }
      case 'delegate':
        // The turn goes on with the specialists' answers.
        step = await delegateStep(run, step);
        continue;
      case 'handoff':
        await handOff(run, step);
        break;
      case 'paused':
        return { kind: 'continue_as_new' };
      case 'run_again':
        break;
    }
    await desk.drain();
    if (progressed && effects.shouldContinueAsNew(chain.state.options.continueAsNewAfterEvents)) return { kind: 'continue_as_new' };
    step = await turn(run);
    progressed = true;
  }
}

/** Where a run starts: a turn waiting for approval, a model answer to act on, or a model call. */
function firstStep(run: ChainRun): Promise<Step> | Step {
  const { openTurn, pendingResponse } = run.chain.state;
  if (openTurn) return finishTurn(run, openTurn);
  if (pendingResponse) return respond(run, pendingResponse);
  return RUN_AGAIN;
}

/** The run's output: the checked value of a structured answer, else the text. */
function valueOf(answer: FinalAnswer): unknown {
  return answer.checked && 'value' in answer.checked ? answer.checked.value : answer.text;
}
