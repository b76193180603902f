/**
 * The tools an agent is offered on a turn: its own, its handoff tools with only the targets whose
 * `isEnabled` rule holds, and `readState` when the team shares state.
 *
 * Pure: no Temporal API, no I/O.
 */
import {
  SPECIALIST_DELEGATE_TOOL_NAME,
  SPECIALIST_HANDOFF_TOOL_NAME,
  specialistToolSpec,
} from '../../src/common/delegation';
import { handoffToolSpec, READ_STATE_TOOL, type HandoffTarget, transferToolSpecs } from '../../src/common/handoffTools';
import type { ChatMessage, ToolSpec } from '../../src/common/model';
import type { ChainState } from '../../src/common/state';
import type { AgentSpec, HandoffRule } from '../../src/common/team';

/** Every tool `agent` is offered now. */
export function offeredTools(state: ChainState, agent: AgentSpec): ToolSpec[] {
  const targets = agent.handoffs.filter((id) => ruleHolds(state, agent.handoffOptions?.[id]?.isEnabled));
  const extra = [...delegationTools(state, agent), ...(state.team.sharedState ? [READ_STATE_TOOL] : [])];
  // Without rules the recorded tools are offered as they are.
  if (targets.length === agent.handoffs.length)
    return [...agent.tools, ...(agent.handoffTool ? [agent.handoffTool] : []), ...(agent.handoffTools ?? []), ...extra];
  const described: HandoffTarget[] = targets.map((id) => ({
    id,
    description: state.team.agents[id]?.description ?? id,
    ...(agent.handoffOptions?.[id] ? { options: agent.handoffOptions[id] } : {}),
  }));
  const sharedState = state.team.sharedState ?? false;
  const handoffTools = agent.handoffTools
    ? transferToolSpecs(agent.id, described, sharedState)
    : [handoffToolSpec(agent.id, described, sharedState)].flatMap((t) => (t ? [t] : []));
  return [...agent.tools, ...handoffTools, ...extra];
}

/** The delegation and routing tools, while the chain may still delegate one level deeper. */
function delegationTools(state: ChainState, agent: AgentSpec): ToolSpec[] {
  const canDelegate = (state.parent?.depth ?? 0) < state.options.maxDelegationDepth;
  const tools: ToolSpec[] = agent.delegateTool && canDelegate ? [agent.delegateTool] : [];
  const routing =
    agent.routing === 'transfer'
      ? SPECIALIST_HANDOFF_TOOL_NAME
      : agent.routing === 'delegate' && canDelegate
        ? SPECIALIST_DELEGATE_TOOL_NAME
        : undefined;
  const specialist = routing ? specialistToolSpec(routing, state.team, agent.id) : undefined;
  return specialist ? [...tools, specialist] : tools;
}

/** Whether `rule` holds on the chain's state (no rule always holds). */
export function ruleHolds(state: ChainState, rule: HandoffRule | undefined): boolean {
  if (!rule) return true;
  if (rule.afterTools && !rule.afterTools.every((name) => toolRan(state.messages, name))) return false;
  if (rule.whileTokensBelow !== undefined && state.usage.totalTokens >= rule.whileTokensBelow) return false;
  if (rule.whileHandoffsBelow !== undefined && state.chain.length >= rule.whileHandoffsBelow) return false;
  for (const [key, value] of Object.entries(rule.whenContext ?? {})) {
    if (JSON.stringify(state.shared?.context[key]) !== JSON.stringify(value)) return false;
  }
  return true;
}

/** Whether a call of tool `name` was made and answered in this conversation. */
function toolRan(messages: ChatMessage[], name: string): boolean {
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  return messages.some(
    (m) => m.role === 'assistant' && (m.toolCalls ?? []).some((c) => c.name === name && answered.has(c.id)),
  );
}
