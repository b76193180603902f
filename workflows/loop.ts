/**
 * The handoff loop: a small dispatcher over {@link Step}s. Each step is a transition of the chain
 * state (`chain/state.ts`), every command goes through the effects port (`chain/effects.ts`), and
 * every feature plugs in through a port of `chain/run.ts`: each control a guard asked at a named
 * point (`guards/`), the economy, steering (`live/`).
 */
import type { HandoffRunResult } from '../src/common/run';
import { delegateStep } from './chain/delegate';
import { handOff } from './chain/handoff';
import { actOn, finishTurn, respond, turn } from './chain/respond';
import { noteSuccess, retried } from './chain/controls';
import { handOverDue } from './chain/handOver';
import { currentAgent, resultOf } from './chain/state';
import { type ChainRun, RUN_AGAIN, type Step } from './chain/step';
import { checkGuardrails } from './chain/guardrails';
import { CONTINUE, type FinalAnswer, refuseAnswer, type Verdict } from './chain/verdict';

export type { ChainRun, Step } from './chain/step';

/** How a run of the loop ends: the chain's answer, or a hand-over to a fresh run. */
export type ChainOutcome = { kind: 'completed'; result: HandoffRunResult<unknown> } | { kind: 'continue_as_new' };

/** Run the chain until an agent answers, or until the run should continue as new. */
export async function runChain(run: ChainRun): Promise<ChainOutcome> {
  const { chain, guards, desk } = run;
  let step = await firstStep(run);
  // A run continues as new only after a step of its own, so a tiny history limit cannot spin.
  let progressed = false;
  for (;;) {
    switch (step.kind) {
      case 'final_output': {
        // A steering message that came while the model answered: the answer is not the last word.
        if (run.steering?.apply(run)) break;
        const verdict = guards.onFinish(chain.state, step.answer);
        if (
          retried(run, verdict) ||
          retried(run, await outputGuardrails(run, step.answer)) ||
          retried(run, guards.onComplete(chain.state))
        )
          break;
        noteSuccess(run, chain.state.agentId);
        return { kind: 'completed', result: resultOf(chain.state, valueOf(step.answer)) };
      }
      case 'delegate':
        // The turn goes on with the specialists' answers.
        step = await delegateStep(run, step);
        continue;
      case 'handoff': {
        const handed = handOff(run, step);
        if (handed) await handed;
        break;
      }
      case 'paused':
        return { kind: 'continue_as_new' };
      case 'run_again':
        break;
    }
    if (!desk.idle) await desk.drain();
    if (handOverDue(run, progressed)) return { kind: 'continue_as_new' };
    step = await turn(run);
    progressed = true;
  }
}

/**
 * Where a run starts: a turn waiting for approval, a model answer to act on, or a model call —
 * after the first agent's input guardrails when the chain is new.
 */
async function firstStep(run: ChainRun): Promise<Step> {
  const { openTurn, openTools, pendingResponse, turns, chain, request } = run.chain.state;
  if (openTurn) return finishTurn(run, openTurn);
  // A turn whose tool calls waited for approval when the run before continued as new.
  if (openTools) return actOn(run, openTools.response);
  if (pendingResponse) return respond(run, pendingResponse);
  const agent = currentAgent(run.chain.state);
  if (turns === 0 && chain.length === 0 && agent.guardrails?.input) {
    // Nobody could act on feedback about the run's own input: a trip fails the run.
    retried(run, await checkGuardrails(run, agent, 'input', request ?? '', () => undefined));
  }
  return RUN_AGAIN;
}

/** The current agent's output guardrails on its answer; feedback is sent back to it as a message. */
async function outputGuardrails(run: ChainRun, answer: FinalAnswer): Promise<Verdict> {
  const agent = currentAgent(run.chain.state);
  if (!agent.guardrails?.output) return CONTINUE;
  const text = answer.checked && 'value' in answer.checked ? JSON.stringify(answer.checked.value) : answer.text;
  const verdict = await checkGuardrails(
    run,
    agent,
    'output',
    text,
    (reason, g) => `Your answer was not sent: guardrail "${g.name}" tripped: ${reason}. Answer again without that.`,
  );
  return verdict.kind === 'retry' ? refuseAnswer('guardrails', verdict.message) : verdict;
}

/** The run's output: the checked value of a structured answer, else the text. */
function valueOf(answer: FinalAnswer): unknown {
  return answer.checked && 'value' in answer.checked ? answer.checked.value : answer.text;
}
