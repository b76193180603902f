/**
 * The chain's state and its one writer: {@link reduce} folds {@link ChainEvent}s into a
 * {@link ChainState}. The loop applies events as they happen; a replay rebuilds the state of a
 * failed run by folding the events its history recorded through the same function.
 *
 * Pure: no Temporal API, no I/O.
 */
import { runRulesUnder, withPolicy } from '../../src/common/authority/policyUpdate';
import { AgentNotFoundError } from '../../src/common/errors';
import type { ChatMessage, ModelResponse } from '../../src/common/model';
import { resolveRunOptions, type ResolvedRunOptions } from '../../src/common/options';
import type { HandoffRunResult, RunOverrides } from '../../src/common/run';
import type { OperatorIdentity } from '../../src/common/signatures/operator';
import type { ChainState } from '../../src/common/state';
import type { AgentSpec, RunContext, SharedState, StateUpdate, TeamSpec } from '../../src/common/team';
import { reduceApproval } from './approvalState';
import { addAgentUsage, addTokens, initialControls, NO_USAGE, reduceControl } from './controlState';
import { priced } from './costs';
import type { ChainEvent } from './events';

export type { ChainEvent } from './events';

/** A new chain: `agentId` starts with `input`. */
export function startChain(
  team: TeamSpec,
  agentId: string,
  input: string,
  options: ResolvedRunOptions,
  context?: RunContext,
  controls?: { startedAt: number },
): ChainState {
  const agent = agentOf(team, agentId);
  return {
    ...(controls ? { controls: initialControls(controls.startedAt) } : {}),
    ...(context ? { context } : {}),
    request: input,
    ...(team.sharedState ? { shared: { context: {}, artifacts: [], workflowState: {} } } : {}),
    team,
    options,
    agentId,
    messages: conversationFor(agent, input),
    chain: [],
    usage: { ...NO_USAGE },
    turns: 0,
    activationTurns: 0,
    invalidHandoffs: 0,
    callCounts: {},
    approvals: { pending: [], decided: [] },
    continuedRuns: 0,
  };
}

/** The state with `event` applied, and what it cost in chains with economics. */
export function reduce(s: ChainState, event: ChainEvent): ChainState {
  const next = reduceChain(s, event);
  return next.economics ? priced(s, event, next) : next;
}

function reduceChain(s: ChainState, event: ChainEvent): ChainState {
  switch (event.type) {
    case 'turn_started':
      return {
        ...s,
        turns: s.turns + 1,
        activationTurns: s.activationTurns + 1,
        callCounts: { ...s.callCounts, [s.agentId]: (s.callCounts[s.agentId] ?? 0) + 1 },
      };
    case 'model_responded': {
      const { response } = event;
      const { inputTokens, outputTokens } = response.usage;
      const message: ChatMessage = {
        role: 'assistant',
        content: response.content,
        ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
      };
      const { pendingResponse: _taken, ...rest } = s;
      return {
        ...withAgentUsage(rest, { inputTokens, outputTokens }),
        messages: [...s.messages, message],
        usage: addTokens(s.usage, { inputTokens, outputTokens }),
      };
    }
    case 'tools_waiting':
      return { ...s, openTools: event.open };
    case 'tools_ran': {
      const { openTools: _gated, ...rest } = s;
      return {
        ...withAgentUsage(rest, { inputTokens: 0, outputTokens: 0, toolCalls: event.count }, 0),
        usage: { ...s.usage, toolCalls: s.usage.toolCalls + event.count },
        ...(s.controls ? { controls: { ...s.controls, progress: s.controls.progress + event.count } } : {}),
      };
    }
    case 'turn_opened':
      return { ...s, openTurn: event.turn };
    case 'turn_closed': {
      const { openTurn: _closed, ...rest } = s;
      const answers = event.results.map((r): ChatMessage => ({
        role: 'tool',
        toolCallId: r.toolCallId,
        content: r.content,
      }));
      return { ...rest, messages: [...s.messages, ...answers] };
    }
    case 'handed_off': {
      const target = agentOf(s.team, event.record.to);
      return {
        ...s,
        chain: [...s.chain, event.record],
        agentId: target.id,
        activationTurns: 0,
        answerRetries: {},
        messages: event.messages ?? conversationFor(target, event.record.message),
        ...(event.record.update && s.shared ? { shared: mergeUpdate(s.shared, event.record.update) } : {}),
        ...(s.controls
          ? { controls: { ...s.controls, progressAtHandoff: [...s.controls.progressAtHandoff, s.controls.progress] } }
          : {}),
      };
    }
    case 'model_used':
      return { ...withAgentUsage(s, event.usage), usage: addTokens(s.usage, event.usage) };
    case 'invalid_handoff_answered':
      return { ...s, invalidHandoffs: s.invalidHandoffs + 1 };
    case 'answer_refused': {
      const retries = s.answerRetries ?? {};
      return {
        ...s,
        answerRetries: { ...retries, [event.guard]: (retries[event.guard] ?? 0) + 1 },
        messages: [...s.messages, { role: 'user', content: event.message }],
      };
    }
    case 'approval_requested':
    case 'approval_decided':
    case 'approval_progressed':
    case 'approval_voted':
    case 'approval_questioned':
      return reduceApproval(s, event);
    case 'overridden':
      return applyOverrides(s, event.overrides);
    case 'policy_updated':
      return {
        ...s,
        team: withPolicy(s.team, event.policy),
        options: { ...s.options, approvals: runRulesUnder(s.team, s.options.approvals, event.policy) },
      };
    case 'control':
      return s.controls ? { ...s, controls: reduceControl(s.controls, event.event, event.at) } : s;
    case 'steered':
      return {
        ...s,
        messages: [...s.messages, ...event.messages.map((content): ChatMessage => ({ role: 'user', content }))],
      };
    case 'carried_decision_used': {
      const { [event.key]: _used, ...rest } = s.decidedCalls ?? {};
      return { ...s, decidedCalls: rest };
    }
    case 'routed':
      return { ...s, routingCounts: { ...s.routingCounts, [event.kind]: (s.routingCounts?.[event.kind] ?? 0) + 1 } };
    case 'delegation_ended': {
      if (!s.controls) return s;
      const c = s.controls;
      const used = event.usage ?? NO_USAGE;
      const byAgent = event.usageByAgent ?? { [event.agent]: used };
      let usageByAgent = c.usageByAgent;
      for (const [agent, u] of Object.entries(byAgent))
        usageByAgent = addAgentUsage(usageByAgent, agent, u, u.modelCalls);
      return {
        ...s,
        usage: addTokens(s.usage, used, used.modelCalls),
        controls: { ...c, usageByAgent, progress: c.progress + (event.ok ? 1 : 0) },
      };
    }
  }
}

/** The state with `usage` added to the current agent's (chains with controls). */
function withAgentUsage<S extends Pick<ChainState, 'controls' | 'agentId'>>(
  s: S,
  usage: { inputTokens: number; outputTokens: number; toolCalls?: number },
  calls = 1,
): S {
  return s.controls
    ? {
        ...s,
        controls: { ...s.controls, usageByAgent: addAgentUsage(s.controls.usageByAgent, s.agentId, usage, calls) },
      }
    : s;
}

/**
 * Overrides applied: options replaced from now on, models swapped by agent. Validate them first
 * (`overrideProblems`); an unknown agent here is a defect.
 */
export function applyOverrides(s: ChainState, o: RunOverrides & { identity?: OperatorIdentity }): ChainState {
  const options = o.options ? resolveRunOptions({ ...s.options, ...o.options }) : s.options;
  // An operator's passkey counter, remembered so its assertion is not taken again (across runs too).
  const id = o.identity;
  const used = {
    ...(id?.passkey ? { operatorSignCounts: { ...s.operatorSignCounts, [id.kid]: id.passkey.signCount } } : {}),
    ...(id?.iat !== undefined ? { operatorSignedAt: { ...s.operatorSignedAt, [id.kid]: id.iat } } : {}),
  };
  let team = s.team;
  for (const [id, model] of Object.entries(o.models ?? {})) {
    const agent = agentOf(team, id);
    team = { ...team, agents: { ...team.agents, [id]: { ...agent, model } } };
  }
  return { ...s, ...used, options, team };
}

/**
 * The shared state with a handoff's update merged: `context` and `workflowState` key by key (a key
 * set to `null` is removed), `artifacts` appended.
 */
export function mergeUpdate(shared: SharedState, update: StateUpdate): SharedState {
  const merge = (into: Record<string, unknown>, from: Record<string, unknown> | undefined) => {
    const out = { ...into };
    for (const [k, v] of Object.entries(from ?? {})) {
      if (v === null) delete out[k];
      else out[k] = v;
    }
    return out;
  };
  return {
    context: merge(shared.context, update.context),
    artifacts: [...shared.artifacts, ...(update.artifacts ?? [])],
    workflowState: merge(shared.workflowState, update.workflowState),
  };
}

/** What continue-as-new carries into the next run. */
export function carryOver(s: ChainState): ChainState {
  const { replayOf: _origin, pendingResponse: _none, ...rest } = s;
  return { ...rest, continuedRuns: s.continuedRuns + 1 };
}

/** The agent working now. */
export function currentAgent(s: ChainState): AgentSpec {
  return agentOf(s.team, s.agentId);
}

/** What `handoffRun` returns when `output` ends the chain. */
export function resultOf(s: ChainState, output: unknown): HandoffRunResult<unknown> {
  const c = s.controls;
  return {
    output,
    finalAgent: s.agentId,
    handoffChain: s.chain,
    usage: s.usage,
    ...(s.shared ? { state: s.shared } : {}),
    ...(c ? { usageByAgent: c.usageByAgent, controls: c.counters } : {}),
    ...(s.economics ? { usageByEdge: s.economics.usageByEdge, usageByDelegation: s.economics.usageByDelegation } : {}),
    ...(c?.finalTurn ? { budgetExceeded: c.finalTurn } : {}),
  };
}

export function agentOf(team: TeamSpec, id: string): AgentSpec {
  // Own agents only: an id such as "constructor" names no agent, whatever every object inherits.
  const agent = Object.hasOwn(team.agents, id) ? team.agents[id] : undefined;
  if (!agent) throw new AgentNotFoundError(id, Object.keys(team.agents));
  return agent;
}

function conversationFor(agent: AgentSpec, input: string): ChatMessage[] {
  return [
    { role: 'system', content: agent.instructions },
    { role: 'user', content: input },
  ];
}

/** The state before a step of the loop, with the model's answer the step acts on when it has one. */
export interface StepMark {
  state: ChainState;
  response?: ModelResponse;
}

/** The chain's current state, shared by the loop, the approval desk and the queries. */
export class Chain {
  /** The last step begun: where a turn that cannot go on where it stands is taken up again (`restartPoint`). */
  mark?: StepMark;

  constructor(public state: ChainState) {}

  apply(event: ChainEvent): void {
    this.state = reduce(this.state, event);
  }

  /** A step begins from the state now, acting on `response` when given. */
  markStep(response?: ModelResponse): void {
    this.mark = { state: this.state, ...(response ? { response } : {}) };
  }
}
