import { HANDOFF_TOOL_NAME, READ_STATE_TOOL_NAME } from '../common/handoff';
import { approvalProblems, teamProblems, toolNameProblems } from './teamProblems';
import { TeamValidationError } from '../common/errors';
import type { ApprovalRule } from '../common/approvals';
import { approvalTimingCheck, type ApprovalTiming } from '../common/approvalTiming';
import { rejectionReasonsProblems, type RejectionReason } from '../common/approvalReasons';
import type { ToolSensitivitySpec } from '../common/sensitive';
import type { ToolApprovalSpec } from '../common/controls';
import type { AgentSpec, TeamSpec } from '../common/team';
import type { Agent, HandoffToolStyle } from './agent';
import { handoffToolSpec, transferToolName, transferToolSpecs } from '../common/handoffTools';
import { delegateToolSpec } from '../common/delegation';
import { delegateOptionsSpec, type HandoffDeclaration, handoffOptionsSpec } from './handoff';
import { toJsonSchema, type Tool } from './tool';
import { agentMcpTools, mcpTeamProblems, type McpToolSpecs } from '../mcp/teamTools';
import type { TeamVersion } from '../common/version';
import { entryRulesProblems } from '../common/authority/entryRules';
import { keyProblems, keysOf } from './teamKeys';
import { namingProblems, teamVersion } from './version';
import { economicsProblems, economicsSpec, type EconomicsOptions } from '../common/economics/spec';
import type { PriceTable } from '../common/economics/prices';
import { guardrailsSpec } from './guardrails';
import { Remotes } from './remote';
import { type NotificationOptions, notificationProblems, notificationsSpec } from './notifications';
import { type EventRule, eventRuleProblems } from './eventRules';
import type { TeamOptions } from './teamOptions';

/**
 * The agents a worker serves. Registration validates the whole graph at once and throws a
 * {@link TeamValidationError} listing every problem, before anything runs.
 * @example
 * const team = new Team([triage, refunds, sales]);
 */
export class Team {
  readonly #agents = new Map<string, Agent>();
  readonly #approvals: ApprovalRule[];
  readonly #approvalPolicy?: ApprovalTiming;
  readonly #rejectionReasons?: RejectionReason[];
  readonly #handoffTools: HandoffToolStyle;
  readonly #sharedState: boolean;
  readonly #naming: { name?: string; label?: string };
  readonly #keys: ReturnType<typeof keysOf>;
  readonly #economics: EconomicsOptions;
  /** Agents of other teams that agents delegate to, with the worker's credentials for them. */
  readonly remotes: Remotes;
  /** The team's notification channels, secrets included: the worker's `notifyApprovers` activity reads them. */
  readonly notifications?: NotificationOptions;
  readonly #events: EventRule[];

  constructor(agents: Agent[] = [], options: TeamOptions = {}) {
    const naming = { name: options.name, label: options.version };
    const timing =
      options.approvalPolicy === undefined ? [] : approvalTimingCheck(options.approvalPolicy, 'approvalPolicy');
    const problems = [
      ...namingProblems(naming),
      ...keyProblems(options),
      ...economicsProblems(options),
      ...(options.notifications ? notificationProblems(options.notifications) : []),
      ...timing,
      ...(options.rejectionReasons === undefined ? [] : rejectionReasonsProblems(options.rejectionReasons)),
    ];
    if (problems.length > 0) throw new TeamValidationError(problems);
    if (options.notifications) this.notifications = options.notifications;
    this.#keys = keysOf(options);
    this.#naming = naming;
    this.#economics = {
      prices: options.prices,
      spendLimits: options.spendLimits,
      sharedBreakers: options.sharedBreakers,
    };
    this.#approvals = options.approvals ?? [];
    if (options.approvalPolicy) this.#approvalPolicy = options.approvalPolicy;
    if (options.rejectionReasons)
      this.#rejectionReasons = options.rejectionReasons.map((r) => ({ code: r.code, label: r.label }));
    this.#handoffTools = options.handoffTools ?? 'single';
    this.#sharedState = options.sharedState ?? false;
    this.remotes = new Remotes(options.remotes);
    this.#events = Array.isArray(options.events)
      ? structuredClone(options.events)
      : ((options.events ?? []) as EventRule[]);
    if (agents.length > 0 || this.#approvals.length > 0 || options.events !== undefined) this.register(...agents);
  }

  /** Add agents; the team is checked as a whole, so agents that refer to each other go in one call. */
  register(...agents: Agent[]): this {
    const all = [...this.#agents.values(), ...agents];
    const problems = [
      ...teamProblems(all, this.remotes),
      ...this.remotes.problems(all),
      ...approvalProblems(this.#approvals, all),
      ...eventRuleProblems(
        this.#events,
        all.map((a) => a?.id),
      ),
      ...entryRulesProblems(
        this.#keys.entry,
        all.map((a) => a?.id),
      ),
      ...mcpTeamProblems(all.filter((a) => a?.kind === 'agent')),
    ];
    if (problems.length === 0) problems.push(...toolNameProblems(all, (a) => this.#handoffToolNames(a, all)));
    if (problems.length > 0) throw new TeamValidationError(problems);
    for (const agent of agents) this.#agents.set(agent.id, agent);
    return this;
  }

  /** Registered ids, in registration order. */
  get ids(): string[] {
    return [...this.#agents.keys()];
  }

  /** The team's event rules (`TeamOptions.events`), as `POST /events` of a service serving the team reads them. */
  get events(): readonly EventRule[] {
    return this.#events;
  }

  /** Registered agents, in registration order. */
  get agents(): Agent[] {
    return [...this.#agents.values()];
  }

  /** The agent `id`, if registered. */
  get(id: string): Agent | undefined {
    return this.#agents.get(id);
  }

  /** The tool `name` of agent `agentId`. */
  tool(agentId: string, name: string): Tool | undefined {
    return this.#agents.get(agentId)?.tools.find((t) => t.name === name);
  }

  /** The names of every tool `agent` can call, its handoff tools included. */
  toolNames(agent: Agent): string[] {
    return [
      ...agent.tools.map((t) => t.name),
      ...this.#handoffToolNames(agent, this.agents),
      ...(this.#sharedState ? [READ_STATE_TOOL_NAME] : []),
    ];
  }

  /** The handoff declaration of `from` for `to`, with its worker-side parts (`inputType`, `onHandoff`). */
  handoffDeclaration(from: string, to: string): HandoffDeclaration | undefined {
    return this.#agents.get(from)?.handoffDeclarations[to];
  }

  /** The delegation part of an agent's spec: its delegates, their options and the `delegate` tool. */
  #delegation(agent: Agent): Pick<AgentSpec, 'delegates' | 'delegateOptions' | 'delegateTool'> {
    const declared = Object.values(agent.delegates);
    if (declared.length === 0) return {};
    const delegateOptions = Object.fromEntries(declared.map((d) => [d.to, delegateOptionsSpec(d)]));
    const targets = declared.map((d) => ({
      id: d.to,
      description: this.#agents.get(d.to)?.description ?? this.remotes.get(d.to)?.spec.description ?? d.to,
      options: delegateOptions[d.to],
    }));
    return { delegates: declared.map((d) => d.to), delegateOptions, delegateTool: delegateToolSpec(agent.id, targets) };
  }

  #style(agent: Agent): HandoffToolStyle {
    return agent.handoffTools ?? this.#handoffTools;
  }

  #handoffToolNames(agent: Agent, all: Agent[]): string[] {
    const targets = agent.handoffs ? [...agent.handoffs] : all.map((a) => a.id).filter((id) => id !== agent.id);
    if (targets.length === 0) return [];
    if (this.#style(agent) === 'single') return [HANDOFF_TOOL_NAME];
    return targets.map((id) =>
      transferToolName({
        id,
        options: agent.handoffDeclarations[id] ? handoffOptionsSpec(agent.handoffDeclarations[id]) : undefined,
      }),
    );
  }

  /** The agents this one may hand off to: its `handoffs` when given, else every other agent. */
  targets(agent: Agent): string[] {
    return agent.handoffs ? [...agent.handoffs] : this.ids.filter((id) => id !== agent.id);
  }

  /**
   * The serializable snapshot recorded in each run's history. `mcpTools`: the tools the worker's
   * MCP servers listed, which join their agents' tools (a clash of names throws). `prices`: the
   * worker's, over the team's.
   */
  spec(options: { hasHandoffListeners?: boolean; mcpTools?: McpToolSpecs; prices?: PriceTable } = {}): TeamSpec {
    if (this.#agents.size === 0) throw new TeamValidationError(['the team has no agents']);
    const agents: Record<string, AgentSpec> = {};
    const mcpProblems: string[] = [];
    for (const agent of this.#agents.values()) {
      const mcp = agentMcpTools(agent.id, agent.mcpServers, options.mcpTools, this.toolNames(agent));
      mcpProblems.push(...mcp.problems);
      const handoffs = this.targets(agent);
      const handoffOptions = Object.fromEntries(
        Object.values(agent.handoffDeclarations).map((d) => [d.to, handoffOptionsSpec(d)]),
      );
      const targets = handoffs.map((id) => ({
        id,
        description: this.#agents.get(id)?.description ?? id,
        ...(handoffOptions[id] ? { options: handoffOptions[id] } : {}),
      }));
      const perTarget = this.#style(agent) === 'per_target' && targets.length > 0;
      const handoffTool = perTarget ? undefined : handoffToolSpec(agent.id, targets, this.#sharedState);
      const handoffTools = perTarget ? transferToolSpecs(agent.id, targets, this.#sharedState) : undefined;
      agents[agent.id] = {
        id: agent.id,
        name: agent.name,
        description: agent.description,
        instructions: agent.instructions,
        model: agent.model,
        tools: [...agent.tools.map((t) => t.spec), ...mcp.tools],
        handoffs,
        ...(handoffTool ? { handoffTool } : {}),
        ...(handoffTools
          ? {
              handoffTools,
              handoffToolTargets: Object.fromEntries(handoffTools.map((t, i) => [t.name, targets[i]!.id])),
            }
          : {}),
        ...(Object.keys(handoffOptions).length > 0 ? { handoffOptions } : {}),
        ...this.#delegation(agent),
        ...(agent.profile ? { profile: agent.profile } : {}),
        ...(agent.routing ? { routing: agent.routing } : {}),
        ...(agent.outputType ? { outputSchema: toJsonSchema(agent.outputType) } : {}),
        ...(agent.approval ? { approval: agent.approval } : {}),
        ...guardrailsSpec(agent.guardrails),
        ...(agent.modelActivity ? { modelActivity: agent.modelActivity } : {}),
        ...(agent.returnTo !== undefined ? { returnTo: agent.returnTo } : {}),
        ...toolApprovals(agent, mcp.approvals),
        ...toolSensitivity(agent, mcp.sensitivity),
      };
    }
    if (mcpProblems.length > 0) throw new TeamValidationError(mcpProblems);
    const spec: TeamSpec = {
      agents,
      approvals: this.#approvals,
      ...(this.#approvalPolicy ? { approvalPolicy: this.#approvalPolicy } : {}),
      ...(this.#rejectionReasons ? { rejectionReasons: this.#rejectionReasons } : {}),
      hasHandoffListeners: options.hasHandoffListeners ?? false,
      ...(this.#sharedState ? { sharedState: true } : {}),
      ...this.#keys,
      ...this.remotes.spec(),
    };
    const economics = economicsSpec({ ...this.#economics, prices: { ...this.#economics.prices, ...options.prices } });
    const notifications = this.notifications ? { notifications: notificationsSpec(this.notifications) } : {};
    return {
      ...spec,
      version: teamVersion(spec, this.#naming),
      ...(Object.keys(economics).length > 0 ? { economics } : {}),
      ...notifications,
    };
  }

  /**
   * The team's version as a worker without MCP servers would record it (a worker adds the tools its
   * MCP servers list, which changes the hash).
   */
  get version(): TeamVersion {
    return this.spec().version!;
  }
}

/** The agent's tools (its MCP servers' included) that need approval, by name. */
function toolApprovals(agent: Agent, mcp: Record<string, ToolApprovalSpec>): Pick<AgentSpec, 'toolApprovals'> {
  const own = Object.fromEntries(agent.tools.filter((t) => t.approval).map((t) => [t.name, t.approval!]));
  const all = { ...own, ...mcp };
  return Object.keys(all).length > 0 ? { toolApprovals: all } : {};
}

/** The agent's tools (its MCP servers' included) with sensitive arguments or results, by name. */
function toolSensitivity(agent: Agent, mcp: Record<string, ToolSensitivitySpec>): Pick<AgentSpec, 'toolSensitivity'> {
  const own = Object.fromEntries(agent.tools.filter((t) => t.sensitivity).map((t) => [t.name, t.sensitivity!]));
  const all = { ...own, ...mcp };
  return Object.keys(all).length > 0 ? { toolSensitivity: all } : {};
}
