/**
 * A model turn: call the model, run the tools it asked for, weigh its handoff, and close the turn
 * with every call answered.
 */
import { handedOffAnswer, ignoredHandoffAnswer, unknownToolAnswer } from '../../src/common/answers';
import { priceOf } from '../../src/common/economics/prices';
import { READ_STATE_TOOL_NAME } from '../../src/common/handoff';
import type { ModelResponse, ToolCall } from '../../src/common/model';
import type { OpenTurn } from '../../src/common/state';
import { decidedOutcome, type HandoffOutcome, weighHandoff } from './handoff';
import { noteFailure, retried } from './controls';
import { handOverDue } from './handOver';
import { started } from './effects';
import { currentAgent } from './state';
import { type ChainRun, RUN_AGAIN, type Step, type TurnInProgress } from './step';
import { type Gated, gateToolCalls, PAUSED } from './toolApprovals';
import { offeredTools } from './tools';
import { answersInOrder, callHash, carriedHandoffKey, idempotencyKey, planTurn, toolNames } from './turn';

/**
 * One model turn of the current agent. Steps are promise chains that settle at once when there is
 * nothing to wait for, not async functions: the SDK captures a stack for every promise workflow
 * code makes.
 */
export function turn(run: ChainRun): Promise<Step> {
  const { chain, effects, guards } = run;
  run.steering?.apply(run);
  const verdict = guards.beforeModelCall(chain.state);
  if (retried(run, verdict))
    chain.apply({
      type: 'answer_refused',
      guard: verdict.kind === 'last_turn' ? 'budgets' : 'limits',
      message: verdict.message,
    });
  const agent = currentAgent(chain.state);
  const callIndex = chain.state.callCounts[agent.id] ?? 0;
  // Once a budget ran out, the agent's last turn has no tools: it can only answer.
  const tools = chain.state.controls?.finalTurn ? [] : offeredTools(chain.state, agent);
  chain.markStep();
  chain.apply({ type: 'turn_started' });
  const local = (agent.modelActivity ?? chain.state.options.modelActivity) === 'local';
  const call = (): Promise<Step> => {
    const price = chain.state.economics ? priceOf(chain.state.team.economics?.prices, agent.model) : undefined;
    const called = started(() =>
      effects.callModel(
        {
          agentId: agent.id,
          model: agent.model,
          messages: chain.state.messages,
          tools,
          callIndex,
          ...(agent.outputSchema ? { outputSchema: agent.outputSchema } : {}),
          ...(price ? { price } : {}),
        },
        chain.state.options,
        local,
      ),
    );
    return called.then(
      (response) => {
        run.economy?.afterCall(response.usage);
        return respond(run, response);
      },
      (err: unknown) => {
        // A call that failed, or was stopped before it answered, reports no usage: its reservation is released.
        run.economy?.afterCall(undefined);
        // Stopped for a steering message: the model is asked again with it.
        if (!run.steering?.interrupted(run, err)) throw err;
        return RUN_AGAIN;
      },
    );
  };
  return run.economy ? run.economy.beforeCall(run).then(call) : call();
}

/** Act on a model's answer: run its tools, weigh its handoff, or finish. */
export function respond(run: ChainRun, response: ModelResponse): Step | Promise<Step> {
  const { chain, guards } = run;
  chain.markStep(response);
  chain.apply({ type: 'model_responded', response });
  retried(run, guards.afterModelResponse(chain.state, response));
  return actOn(run, response);
}

/** Act on a model's answer already in the conversation: run its tools, weigh its handoff, or finish. */
export function actOn(run: ChainRun, response: ModelResponse): Step | Promise<Step> {
  const { chain } = run;
  const finalTurn = chain.state.controls?.finalTurn;
  if (response.toolCalls.length === 0 || finalTurn) {
    // Calls made on a last turn offered none are answered, so the conversation stays valid if the answer is sent back.
    if (response.toolCalls.length > 0)
      closeTurn(
        run,
        response.toolCalls,
        new Map(
          response.toolCalls.map((c) => [
            c.id,
            `Not run: the chain's ${finalTurn!.budget} budget is used up; answer now.`,
          ]),
        ),
      );
    return {
      kind: 'final_output',
      answer: { text: response.content ?? '', ...(response.output ? { checked: response.output } : {}) },
    };
  }

  const agent = currentAgent(chain.state);
  const plan = planTurn(response.toolCalls, agent);
  const afterTools = (ran: [string, string][] | typeof PAUSED): Step | Promise<Step> => {
    // The calls wait for approval and the run continues as new first; the next run goes on from here.
    if (ran === PAUSED) return { kind: 'paused' };
    const results = new Map(ran);
    for (const call of plan.ignoredHandoffs) results.set(call.id, ignoredHandoffAnswer(plan.handoff));
    const turn = {
      calls: response.toolCalls,
      plan,
      results: [...results],
      ...(response.handoffInputs ? { handoffInputs: response.handoffInputs } : {}),
    };
    return plan.delegations.length > 0 ? { kind: 'delegate', ...turn } : continueTurn(run, turn);
  };
  return plan.tools.length > 0 ? runTools(run, plan.tools, response).then(afterTools) : afterTools([]);
}

/** The rest of a turn once its tools and delegations have answers: weigh its handoff and close it. */
export function continueTurn(run: ChainRun, turn: TurnInProgress): Step | Promise<Step> {
  const { chain, desk } = run;
  const { calls, plan, handoffInputs } = turn;
  const results = new Map(turn.results);
  const handoff = plan.handoff;
  if (!handoff) return closeTurn(run, calls, results);
  return weighHandoff(run, handoff, handoffInputs?.[calls.indexOf(handoff)]).then((weighed) => {
    if (weighed.kind === 'answer') return closeTurn(run, calls, results.set(handoff.id, weighed.answer));
    if (weighed.kind === 'go') {
      const outcome = { answer: handedOffAnswer(weighed.handoff.to), handoff: weighed.handoff };
      return closeTurn(run, calls, results.set(handoff.id, outcome.answer), outcome);
    }
    // A decision carried from the run this one resumes (a replay) stands, for the target it was asked
    // for and once: nobody is asked twice.
    const key = carriedHandoffKey(handoff);
    const carried = chain.state.decidedCalls?.[key];
    if (carried && carried.callHash === callHash(handoff) && carried.to === weighed.handoff.to) {
      chain.apply({ type: 'carried_decision_used', key });
      const outcome = decidedOutcome(weighed.handoff, carried.record);
      return closeTurn(run, calls, results.set(handoff.id, outcome.answer), outcome);
    }
    const waiting = desk.open(weighed.handoff, weighed.policy);
    const open: OpenTurn = {
      calls,
      results: [...results],
      handoffCallId: handoff.id,
      handoff: weighed.handoff,
      handoffId: waiting.handoffId,
    };
    chain.apply({ type: 'turn_opened', turn: open });
    return finishTurn(run, open);
  });
}

/**
 * Run the turn's regular tool calls in parallel. A tool the agent does not have, and `readState`,
 * are answered without an activity.
 */
async function runTools(
  run: ChainRun,
  calls: ToolCall[],
  response: ModelResponse,
): Promise<[string, string][] | typeof PAUSED> {
  const { chain, effects } = run;
  const agent = currentAgent(chain.state);
  const known = (call: ToolCall) => agent.tools.some((t) => t.name === call.name);
  // Calls that need a person's approval wait for it first; then everything that may run runs at once.
  const gates =
    agent.toolApprovals && chain.state.controls
      ? await gateToolCalls(run, agent, calls.filter(known), response)
      : new Map<ToolCall, Gated>();
  if (gates === PAUSED) return PAUSED;
  const { turns, options, context, shared, team } = chain.state;
  const failed: string[] = [];
  const results = Promise.all(
    calls.map(async (call, index): Promise<[string, string]> => {
      if (call.name === READ_STATE_TOOL_NAME && team.sharedState) return [call.id, JSON.stringify(shared ?? {})];
      if (!known(call)) return [call.id, unknownToolAnswer(call.name, toolNames(agent, team.sharedState))];
      const gate = gates.get(call);
      if (gate?.kind === 'answer') return [call.id, gate.content];
      const ran = gate?.call ?? call;
      const idempotency = idempotencyKey(effects.workflowId, agent.id, turns, index, ran);
      const result = await effects.runTool(
        { agentId: agent.id, call: ran, idempotencyKey: idempotency, ...(context ? { context } : {}) },
        options,
      );
      if (result.failure === 'tool') failed[index] = `tool ${call.name}: ${result.content}`;
      return [call.id, gate?.note ? `${gate.note}\n${result.content}` : result.content];
    }),
  );
  chain.apply({ type: 'tools_ran', count: calls.filter((c) => known(c) && gates.get(c)?.kind !== 'answer').length });
  const answers = await results;
  // A tool that reports failures counts against its agent's circuit breaker, in the model's order.
  for (const reason of failed) if (reason) noteFailure(run, agent.id, reason);
  return answers;
}

/** Wait for the approval a turn's handoff needs, then close the turn; `paused` to continue as new first. */
export async function finishTurn(run: ChainRun, open: OpenTurn): Promise<Step> {
  const { chain, desk } = run;
  chain.markStep();
  const approval = await desk.wait(open.handoffId, () => handOverDue(run));
  if (!approval) return { kind: 'paused' };
  const outcome = decidedOutcome(open.handoff, approval);
  return closeTurn(run, open.calls, new Map(open.results).set(open.handoffCallId, outcome.answer), outcome);
}

/** Answer every tool call of the turn and say where the chain goes. */
export function closeTurn(
  run: ChainRun,
  calls: ToolCall[],
  results: Map<string, string>,
  outcome?: HandoffOutcome,
): Step {
  const toolResults = answersInOrder(calls, results);
  run.chain.apply({ type: 'turn_closed', results: toolResults });
  if (!outcome?.handoff) return RUN_AGAIN;
  return {
    kind: 'handoff',
    handoff: outcome.handoff,
    toolResults,
    ...(outcome.approval ? { approval: outcome.approval } : {}),
  };
}
