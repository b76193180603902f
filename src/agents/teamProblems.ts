/** What a team's members and rules must hold before it is a team: the problems, each named. */
import { approvalRuleCheck } from '../common/approvalPolicy';
import type { ApprovalRule } from '../common/approvals';
import { READ_STATE_TOOL_NAME } from '../common/handoff';
import type { Agent } from './agent';
import type { Remotes } from './remote';

/** Members made with defineAgent, unique ids, registered targets and returnTo, unique tool names. */
export function teamProblems(agents: Agent[], remotes: Pick<Remotes, 'has'>): string[] {
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
    for (const target of [...(agent.handoffs ?? []), ...Object.keys(agent.delegates ?? {})]) {
      if (typeof target !== 'string' || remotes.has(target)) continue;
      if (!ids.has(target)) {
        problems.push(
          `agent "${agent.id}" lists handoff target "${target}", which is not registered (registered: ${registered})`,
        );
      }
    }
    const returns = [
      ['', agent.returnTo],
      ...Object.values(agent.handoffDeclarations).map((d) => [` (handoff to ${d.to})`, d.returnTo]),
    ] as const;
    for (const [where, returnTo] of returns) {
      if (typeof returnTo === 'string' && returnTo !== 'stay' && returnTo !== 'caller' && !ids.has(returnTo)) {
        problems.push(
          `agent "${agent.id}"${where} has returnTo "${returnTo}", which is not "stay", "caller" or a registered agent (registered: ${registered})`,
        );
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

/** The team's approval rules, each checked, naming registered agents. */
export function approvalProblems(rules: ApprovalRule[], agents: Agent[]): string[] {
  if (!Array.isArray(rules)) return ['approvals must be an array of {to, from?, …} rules'];
  const ids = new Set(agents.map((a) => a?.id));
  return rules.flatMap((rule, i) => {
    const problems = approvalRuleCheck(rule, `approvals[${i}]`);
    for (const end of ['from', 'to'] as const) {
      const id = rule?.[end];
      if (typeof id === 'string' && !ids.has(id))
        problems.push(`approvals[${i}].${end} "${id}" is not a registered agent`);
    }
    return problems;
  });
}

/** Tool names must be unique per agent, its handoff tools and built-ins included. */
export function toolNameProblems(agents: Agent[], handoffToolNames: (agent: Agent) => string[]): string[] {
  return agents.flatMap((agent) => {
    const own = new Set(agent.tools.map((t) => t.name));
    return handoffToolNames(agent)
      .filter((name) => own.has(name) || name === READ_STATE_TOOL_NAME)
      .map(
        (name) => `agent "${agent.id}" has a tool named "${name}", which is also the name of one of its handoff tools`,
      );
  });
}
