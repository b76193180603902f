import { HANDOFF_TOOL_NAME } from '../common/handoff';
import { approvalRuleCheck } from '../common/options';
import { TeamValidationError } from '../common/errors';
import type { ApprovalRule } from '../common/approvals';
import type { AgentSpec, TeamSpec } from '../common/team';
import type { Agent } from './agent';
import { createHandoffTool } from './handoff';
import { toJsonSchema, type Tool } from './tool';

/**
 * The agents a worker serves. Registration validates the whole graph at once and throws a
 * {@link TeamValidationError} listing every problem, before anything runs.
 * @example
 * const team = new Team([triage, refunds, sales]);
 */
export class Team {
  readonly #agents = new Map<string, Agent>();
  readonly #approvals: ApprovalRule[];

  /**
   * @param options.approvals approval rules for edges (`{from, to, …}`) or targets (`{to, …}`); an
   *   edge rule wins over a target rule, and a run's own `approvals` win over the team's.
   */
  constructor(agents: Agent[] = [], options: { approvals?: ApprovalRule[] } = {}) {
    this.#approvals = options.approvals ?? [];
    if (agents.length > 0 || this.#approvals.length > 0) this.register(...agents);
  }

  /** Add agents; the team is checked as a whole, so agents that refer to each other go in one call. */
  register(...agents: Agent[]): this {
    const all = [...this.#agents.values(), ...agents];
    const problems = [...teamProblems(all), ...approvalProblems(this.#approvals, all)];
    if (problems.length > 0) throw new TeamValidationError(problems);
    for (const agent of agents) this.#agents.set(agent.id, agent);
    return this;
  }

  /** Registered ids, in registration order. */
  get ids(): string[] {
    return [...this.#agents.keys()];
  }

  get agents(): Agent[] {
    return [...this.#agents.values()];
  }

  get(id: string): Agent | undefined {
    return this.#agents.get(id);
  }

  /** The tool `name` of agent `agentId`. */
  tool(agentId: string, name: string): Tool | undefined {
    return this.#agents.get(agentId)?.tools.find((t) => t.name === name);
  }

  /** The names of every tool `agent` can call, its handoff tool included. */
  toolNames(agent: Agent): string[] {
    const names = agent.tools.map((t) => t.name);
    return this.targets(agent).length > 0 ? [...names, HANDOFF_TOOL_NAME] : names;
  }

  /** The agents this one may hand off to: its `handoffs` when given, else every other agent. */
  targets(agent: Agent): string[] {
    return agent.handoffs ? [...agent.handoffs] : this.ids.filter((id) => id !== agent.id);
  }

  /** The serializable snapshot recorded in each run's history. */
  spec(options: { hasHandoffListeners?: boolean } = {}): TeamSpec {
    if (this.#agents.size === 0) throw new TeamValidationError(['the team has no agents']);
    const agents: Record<string, AgentSpec> = {};
    for (const agent of this.#agents.values()) {
      const handoffs = this.targets(agent);
      const handoffTool = createHandoffTool(
        agent.id,
        handoffs.map((id) => ({ id, description: this.#agents.get(id)?.description ?? id })),
      );
      agents[agent.id] = {
        id: agent.id,
        name: agent.name,
        description: agent.description,
        instructions: agent.instructions,
        model: agent.model,
        tools: agent.tools.map((t) => t.spec),
        handoffs,
        ...(handoffTool ? { handoffTool } : {}),
        ...(agent.outputType ? { outputSchema: toJsonSchema(agent.outputType) } : {}),
        ...(agent.approval ? { approval: agent.approval } : {}),
      };
    }
    return { agents, approvals: this.#approvals, hasHandoffListeners: options.hasHandoffListeners ?? false };
  }
}

function teamProblems(agents: Agent[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const agent of agents) {
    if (agent?.kind !== 'agent') {
      problems.push('every member must be made with defineAgent()');
      continue;
    }
    if (ids.has(agent.id)) problems.push(`duplicate agent id "${agent.id}"`);
    ids.add(agent.id);
  }
  const registered = [...ids].join(', ');
  for (const agent of agents) {
    if (agent?.kind !== 'agent') continue;
    for (const target of agent.handoffs ?? []) {
      if (!ids.has(target)) {
        problems.push(`agent "${agent.id}" lists handoff target "${target}", which is not registered (registered: ${registered})`);
      }
    }
    const seen = new Set<string>();
    for (const tool of agent.tools) {
      if (seen.has(tool.name)) problems.push(`agent "${agent.id}" has two tools named "${tool.name}"`);
      seen.add(tool.name);
    }
  }
  return problems;
}

function approvalProblems(rules: ApprovalRule[], agents: Agent[]): string[] {
  if (!Array.isArray(rules)) return ['approvals must be an array of {to, from?, …} rules'];
  const ids = new Set(agents.map((a) => a?.id));
  return rules.flatMap((rule, i) => {
    const problems = approvalRuleCheck(rule, `approvals[${i}]`);
    for (const end of ['from', 'to'] as const) {
      const id = rule?.[end];
      if (typeof id === 'string' && !ids.has(id)) problems.push(`approvals[${i}].${end} "${id}" is not a registered agent`);
    }
    return problems;
  });
}
