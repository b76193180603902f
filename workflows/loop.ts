/**
 * The handoff loop: a small dispatcher over {@link Step}s. Each step is a transition of the chain
 * state (`chain/state.ts`), every command goes through the effects port (`chain/effects.ts`), and
 * every control is a guard asked at a named point (`guards/`).
 */
import { handedOffAnswer, ignoredHandoffAnswer, unknownToolAnswer } from '../src/common/answers';
import type { ApprovalRecord } from '../src/common/approvals';
import type { HandoffResult } from '../src/common/handoff';
import type { ModelResponse, ToolCall } from '../src/common/model';
import type { HandoffRunResult, ToolResultRecord } from '../src/common/run';
import type { OpenTurn } from '../src/common/state';
import type { ApprovalDesk } from './chain/desk';
import type { ChainEffects } from './chain/effects';
import { decidedOutcome, type HandoffOutcome, readHandoff } from './chain/handoff';
import { type Chain, currentAgent, resultOf } from './chain/state';
import { answersInOrder, idempotencyKey, planTurn, toolNames } from './chain/turn';
import type { FinalAnswer, Guards, Verdict } from './guards';

/** What a model turn leads to. */
export type Step =
  | { kind: 'final_output'; answer: FinalAnswer }
  | { kind: 'handoff'; handoff: HandoffResult; approval?: ApprovalRecord; toolResults: ToolResultRecord[] }
  | { kind: 'run_again' }
  | { kind: 'paused' };

/** How a run of the loop ends: the chain's answer, or a hand-over to a fresh run. */
export type ChainOutcome = { kind: 'completed'; result: HandoffRunResult<unknown> } | { kind: 'continue_as_new' };

/** What the loop works with. */
export interface ChainRun {
  chain: Chain;
  effects: ChainEffects;
  guards: Guards;
  desk: ApprovalDesk;
}

const RUN_AGAIN: Step = { kind: 'run_again' };

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

/** Apply a guard's verdict: `true` when the model is to be told something and go on, throws on `fail`. */
function retried(run: ChainRun, verdict: Verdict): verdict is Extract<Verdict, { kind: 'retry' }> {
  if (verdict.kind === 'fail') throw verdict.error;
  if (verdict.kind !== 'retry') return false;
  run.chain.apply(verdict.event);
  return true;
}

async function turn(run: ChainRun): Promise<Step> {
  const { chain, effects, guards } = run;
  retried(run, guards.beforeModelCall(chain.state));
  const agent = currentAgent(chain.state);
  const callIndex = chain.state.callCounts[agent.id] ?? 0;
  chain.apply({ type: 'turn_started' });
  const tools = agent.handoffTool ? [...agent.tools, agent.handoffTool] : agent.tools;
  const response = await effects.callModel(
    { agentId: agent.id, model: agent.model, messages: chain.state.messages, tools, callIndex, ...(agent.outputSchema ? { outputSchema: agent.outputSchema } : {}) },
    chain.state.options,
  );
  return respond(run, response);
}

/** Act on a model's answer: run its tools, weigh its handoff, or finish. */
async function respond(run: ChainRun, response: ModelResponse): Promise<Step> {
  const { chain, guards, desk } = run;
  chain.apply({ type: 'model_responded', response });
  retried(run, guards.afterModelResponse(chain.state, response));
  if (response.toolCalls.length === 0) return { kind: 'final_output', answer: { text: response.content ?? '', ...(response.output ? { checked: response.output } : {}) } };

  const plan = planTurn(response.toolCalls);
  const results = new Map(await runTools(run, plan.tools));
  for (const call of plan.ignoredHandoffs) results.set(call.id, ignoredHandoffAnswer(plan.handoff));
  if (!plan.handoff) return closeTurn(run, response.toolCalls, results);

  const request = readHandoff(plan.handoff, chain.state.agentId);
  if (request.kind === 'invalid') return closeTurn(run, response.toolCalls, results.set(plan.handoff.id, request.answer));
  const verdict = guards.beforeHandoff(chain.state, request.handoff);
  if (retried(run, verdict)) return closeTurn(run, response.toolCalls, results.set(plan.handoff.id, verdict.message));
  if (verdict.kind !== 'wait') {
    const outcome = { answer: handedOffAnswer(request.handoff.to), handoff: request.handoff };
    return closeTurn(run, response.toolCalls, results.set(plan.handoff.id, outcome.answer), outcome);
  }
  const waiting = desk.open(request.handoff, verdict.policy);
  const open: OpenTurn = { calls: response.toolCalls, results: [...results], handoffCallId: plan.handoff.id, handoff: request.handoff, handoffId: waiting.handoffId };
  chain.apply({ type: 'turn_opened', turn: open });
  return finishTurn(run, open);
}

/** Run the turn's regular tool calls in parallel; a tool the agent does not have is answered without an activity. */
async function runTools(run: ChainRun, calls: ToolCall[]): Promise<[string, string][]> {
  const { chain, effects } = run;
  const agent = currentAgent(chain.state);
  const { turns, options, context } = chain.state;
  const known = (call: ToolCall) => agent.tools.some((t) => t.name === call.name);
  const results = Promise.all(
    calls.map(async (call, index): Promise<[string, string]> => {
      if (!known(call)) return [call.id, unknownToolAnswer(call.name, toolNames(agent))];
      const idempotency = idempotencyKey(effects.workflowId, agent.id, turns, index, call);
      const result = await effects.runTool({ agentId: agent.id, call, idempotencyKey: idempotency, ...(context ? { context } : {}) }, options);
      return [call.id, result.content];
    }),
  );
  chain.apply({ type: 'tools_ran', count: calls.filter(known).length });
  return results;
}

/** Wait for the approval a turn's handoff needs, then close the turn; `paused` to continue as new first. */
async function finishTurn(run: ChainRun, open: OpenTurn): Promise<Step> {
  const { chain, effects, desk } = run;
  const approval = await desk.wait(open.handoffId, () => effects.shouldContinueAsNew(chain.state.options.continueAsNewAfterEvents));
  if (!approval) return { kind: 'paused' };
  const outcome = decidedOutcome(open.handoff, approval);
  return closeTurn(run, open.calls, new Map(open.results).set(open.handoffCallId, outcome.answer), outcome);
}

/** Answer every tool call of the turn and say where the chain goes. */
function closeTurn(run: ChainRun, calls: ToolCall[], results: Map<string, string>, outcome?: HandoffOutcome): Step {
  const toolResults = answersInOrder(calls, results);
  run.chain.apply({ type: 'turn_closed', results: toolResults });
  if (!outcome?.handoff) return RUN_AGAIN;
  return { kind: 'handoff', handoff: outcome.handoff, toolResults, ...(outcome.approval ? { approval: outcome.approval } : {}) };
}

/** Record the handoff (state, search attributes, the memo record and hooks) and move on. */
async function handOff(run: ChainRun, step: Extract<Step, { kind: 'handoff' }>): Promise<void> {
  const { chain, effects } = run;
  const h = step.handoff;
  const record = {
    from: h.from,
    to: h.to,
    message: h.message,
    timestamp: new Date(effects.now()).toISOString(),
    turn: chain.state.turns,
    ...(step.approval ? { approval: step.approval } : {}),
  };
  chain.apply({ type: 'handed_off', record });
  const index = chain.state.chain.length;
  effects.setAgent(h.to, index);
  const how = step.approval ? ` (${step.approval.outcome === 'approved' ? `approved by ${step.approval.approver}` : 'approved when nobody decided in time'})` : '';
  await effects.recordHandoff({ summary: `#${index} ${h.from} → ${h.to}${how}`, handoff: record, index, toolResults: step.toolResults }, chain.state.team);
}
