/**
 * A migration onto the current team (`baton replay <id> --on-current-team`): the chain rebuilt at
 * its last good step goes on with the team snapshot the run just took. The current agent's
 * conversation starts from its current instructions; a tool the model called that the team renamed
 * (the same parameters under a new name) is called by its new name, with the decision a person
 * already made on it; when the team no longer has the agent the chain stands at, the chain goes
 * back to the turn that handed off to it, and that handoff is answered as unavailable.
 *
 * Pure: no Temporal API, no I/O.
 */
import { TeamMismatchError } from '../../src/common/errors';
import type { ChatMessage, ModelResponse, ToolCall } from '../../src/common/model';
import type { ChainState, MigrationFallback } from '../../src/common/state';
import type { AgentSpec, TeamSpec } from '../../src/common/team';
import { versionIdOf } from '../../src/common/version';
import { callHash } from '../chain/turn';

/** `state` (taken on its own team) going on with `current`. */
export function rebaseOnCurrentTeam(state: ChainState, current: TeamSpec): ChainState {
  const { migrate, ...rest } = state;
  const from = migrate?.from ?? versionIdOf(state.team);
  const agent = current.agents[state.agentId];
  if (agent)
    return withRenamedCalls(
      { ...rest, team: current, messages: withInstructions(rest.messages, agent) },
      state.team.agents[state.agentId],
      agent,
    );
  const fallback = migrate?.fallback;
  const source = fallback ? current.agents[fallback.agentId] : undefined;
  if (!fallback || !source) {
    const missing = [`agent "${state.agentId}"`, ...(fallback ? [`agent "${fallback.agentId}"`] : [])];
    throw new TeamMismatchError({ version: from, worker: versionIdOf(current), step: 'migration', missing });
  }
  const { pendingResponse: _dropped, decidedCalls: _none, ...back } = rest;
  return {
    ...back,
    team: current,
    agentId: source.id,
    activationTurns: 0,
    answerRetries: {},
    messages: fallbackMessages(fallback, source, from, versionIdOf(current)),
  };
}

/** The conversation with its first system message set to `agent`'s current instructions. */
function withInstructions(messages: ChatMessage[], agent: AgentSpec): ChatMessage[] {
  return messages[0]?.role === 'system'
    ? [{ role: 'system', content: agent.instructions }, ...messages.slice(1)]
    : messages;
}

/** The source's turn, its handoff answered: the agent it handed off to is not in the current team. */
function fallbackMessages(f: MigrationFallback, source: AgentSpec, from: string, to: string): ChatMessage[] {
  const note = `The handoff to ${f.to} did not go on: the team was updated (${from} → ${to}) and has no agent ${f.to} now. Continue without it: answer yourself${source.handoffs.length > 0 ? ` or hand off to one of: ${source.handoffs.join(', ')}` : ''}.`;
  const answers: ChatMessage[] = [
    ...f.answers.map((a): ChatMessage => ({ role: 'tool', toolCallId: a.toolCallId, content: a.content })),
    { role: 'tool', toolCallId: f.handoffCallId, content: note },
  ];
  const assistant = f.messages.at(-1);
  const order = assistant?.role === 'assistant' ? (assistant.toolCalls ?? []).map((c) => c.id) : [];
  answers.sort((a, b) => order.indexOf(toolCallIdOf(a)) - order.indexOf(toolCallIdOf(b)));
  return [...withInstructions(f.messages, source), ...answers];
}

function toolCallIdOf(m: ChatMessage): string {
  return m.role === 'tool' ? m.toolCallId : '';
}

/**
 * The model's pending answer with calls of renamed tools renamed: a tool of the old agent missing
 * from the new one whose parameters equal those of exactly one tool new to the agent. A decision
 * carried for such a call follows it to its new name.
 */
function withRenamedCalls(state: ChainState, before: AgentSpec | undefined, after: AgentSpec): ChainState {
  const response = state.pendingResponse;
  if (!response || !before) return state;
  const renames = renamedTools(before, after);
  if (renames.size === 0) return state;
  const decided = { ...state.decidedCalls };
  const calls = response.toolCalls.map((call): ToolCall => {
    const name = renames.get(call.name);
    if (!name) return call;
    const renamed = { ...call, name };
    const carried = decided[call.id];
    if (carried && carried.callHash === callHash(call)) decided[call.id] = { ...carried, callHash: callHash(renamed) };
    return renamed;
  });
  const pendingResponse: ModelResponse = { ...response, toolCalls: calls };
  return { ...state, pendingResponse, ...(state.decidedCalls ? { decidedCalls: decided } : {}) };
}

/** Old name → new name, for tools renamed between two versions of an agent. */
export function renamedTools(before: AgentSpec, after: AgentSpec): Map<string, string> {
  const oldNames = new Set(before.tools.map((t) => t.name));
  const newNames = new Set(after.tools.map((t) => t.name));
  const added = after.tools.filter((t) => !oldNames.has(t.name));
  const renames = new Map<string, string>();
  for (const old of before.tools.filter((t) => !newNames.has(t.name))) {
    const same = added.filter((t) => JSON.stringify(t.parameters) === JSON.stringify(old.parameters));
    if (same.length === 1 && ![...renames.values()].includes(same[0]!.name)) renames.set(old.name, same[0]!.name);
  }
  return renames;
}
