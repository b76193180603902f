/**
 * Guardrails per agent: its input guardrails on what it receives (the run's input when it starts
 * the chain, a handoff's message), its output guardrails on its final answer. Built-ins are
 * decided here, custom ones by the `checkGuardrail` activity: a step of the chain, asked with
 * `await`, not a guard (guards issue no commands).
 * A trip counts toward the agent's circuit breaker and goes on the record; it fails the run with
 * `GuardrailTrippedError`, or under `onTrip: 'feedback'` is told to the agent that can act on it
 * (at most `maxGuardrailRetries` times per guardrail).
 */
import { builtinVerdict, type GuardrailSpec } from '../../src/common/controls';
import { GuardrailTrippedError } from '../../src/common/errors';
import type { AgentSpec } from '../../src/common/team';
import { noteFailure, recordControl } from './controls';
import type { ChainRun } from './run';
import { CONTINUE, type Verdict } from './verdict';

/** What the guardrails of `agent` make of `text` at `stage`; `feedback` says whether anyone could act on feedback. */
export async function checkGuardrails(
  run: ChainRun,
  agent: AgentSpec,
  stage: 'input' | 'output',
  text: string,
  feedback: (reason: string, g: GuardrailSpec) => string | undefined,
): Promise<Verdict> {
  const list = run.chain.state.controls ? (agent.guardrails?.[stage] ?? []) : [];
  for (const g of list) {
    const { state } = run.chain;
    const verdict =
      builtinVerdict(g, text) ??
      (await run.effects.checkGuardrail(
        { agentId: agent.id, guardrail: g.name, stage, text, ...(state.context ? { context: state.context } : {}) },
        state.options,
      ));
    if (!verdict.tripped) continue;
    const reason = verdict.reason ?? 'no reason given';
    const retries = feedbackCount(run, agent.id, stage, g.name);
    const message =
      g.onTrip === 'feedback' && retries < state.options.maxGuardrailRetries ? feedback(reason, g) : undefined;
    noteFailure(run, agent.id, `guardrail ${g.name}: ${reason}`);
    recordControl(run, {
      kind: 'guardrail_tripped',
      agent: agent.id,
      guardrail: g.name,
      stage,
      reason,
      onTrip: message !== undefined ? 'feedback' : 'fail',
    });
    if (message === undefined)
      return { kind: 'fail', error: new GuardrailTrippedError(agent.id, g.name, stage, reason) };
    return { kind: 'retry', message };
  }
  return CONTINUE;
}

/** Trips of this guardrail told to the agent as feedback so far in the chain. */
function feedbackCount(run: ChainRun, agent: string, stage: 'input' | 'output', name: string): number {
  return run.chain.state.controls?.guardrailFeedback?.[`${agent}/${stage}/${name}`] ?? 0;
}
