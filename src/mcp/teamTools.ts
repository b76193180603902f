/**
 * The MCP servers of a team as its snapshot takes them: declarations that clash before anything
 * connects, and each agent's MCP tools once the servers listed theirs, with the tools a server marks
 * sensitive or needing approval checked against what it lists. No I/O.
 */
import type { ToolApprovalSpec } from '../common/controls';
import type { ToolSpec } from '../common/model';
import type { ToolSensitivitySpec } from '../common/sensitive';
import { sensitivityProblems } from '../common/sensitivityChecks';
import { conditionArgProblems } from '../common/toolApproval';
import { MCP_TOOL_SEPARATOR, mcpToolName, type McpServer } from './server';

/** What the team checks of its agents' MCP servers before anything connects. */
export interface McpAgentView {
  id: string;
  tools: readonly { name: string }[];
  mcpServers?: readonly McpServer[];
}

/**
 * Problems of a team's MCP servers: two declarations with one name but different connections, and
 * an agent's own tool named like one of its servers' tools.
 */
export function mcpTeamProblems(agents: readonly McpAgentView[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, { agent: string; key: string }>();
  for (const agent of agents) {
    for (const server of agent.mcpServers ?? []) {
      const key = JSON.stringify(server);
      const seen = byName.get(server.name);
      if (seen && seen.key !== key)
        problems.push(
          `agents "${seen.agent}" and "${agent.id}" declare different MCP servers named "${server.name}"; give them different names`,
        );
      if (!seen) byName.set(server.name, { agent: agent.id, key });
      const prefix = `${server.name}${MCP_TOOL_SEPARATOR}`;
      for (const tool of agent.tools) {
        if (tool.name.startsWith(prefix))
          problems.push(
            `agent "${agent.id}" has a tool named "${tool.name}", which clashes with the tools of its MCP server "${server.name}" (${prefix}…)`,
          );
      }
    }
  }
  return problems;
}

/** The tools each connected server offers, by server name, as they join the snapshot. */
export type McpToolSpecs = Readonly<Record<string, readonly ToolSpec[]>>;

/**
 * The MCP tools of an agent for its snapshot, and the clashes among all its tool names (`others`:
 * its own tools and built-ins). A server that is not connected contributes nothing.
 */
export function agentMcpTools(
  agentId: string,
  servers: readonly McpServer[] | undefined,
  discovered: McpToolSpecs | undefined,
  others: readonly string[],
): {
  tools: ToolSpec[];
  problems: string[];
  sensitivity: Record<string, ToolSensitivitySpec>;
  approvals: Record<string, ToolApprovalSpec>;
} {
  const tools = (servers ?? []).flatMap((s) => discovered?.[s.name] ?? []);
  const taken = new Set(others);
  const problems: string[] = [];
  for (const tool of tools) {
    if (taken.has(tool.name))
      problems.push(
        `agent "${agentId}" gets two tools named "${tool.name}" (an MCP server's tool names clash once namespaced)`,
      );
    taken.add(tool.name);
  }
  const sensitivity: Record<string, ToolSensitivitySpec> = {};
  for (const server of servers ?? []) {
    const listed = discovered?.[server.name];
    // A server that is not connected (skipped while unavailable) lists nothing to check against.
    if (!listed || !server.sensitive) continue;
    for (const [tool, spec] of Object.entries(server.sensitive)) {
      const name = mcpToolName(server.name, tool);
      const found = listed.find((t) => t.name === name);
      if (!found) {
        const offered =
          listed.map((t) => t.name.slice(server.name.length + MCP_TOOL_SEPARATOR.length)).join(', ') || 'none';
        problems.push(
          `MCP server "${server.name}" marks tool "${tool}" sensitive, but it lists no such tool (it lists: ${offered})`,
        );
        continue;
      }
      const bad = sensitivityProblems(spec, `sensitive.${tool}`, found.parameters, tool);
      if (bad.length > 0) problems.push(...bad.map((p) => `MCP server "${server.name}": ${p}`));
      else sensitivity[name] = spec as ToolSensitivitySpec;
    }
  }
  const approvals: Record<string, ToolApprovalSpec> = {};
  for (const server of servers ?? []) {
    const listed = discovered?.[server.name];
    if (!listed || !server.approvals) continue;
    for (const [tool, spec] of Object.entries(server.approvals)) {
      const name = mcpToolName(server.name, tool);
      const found = listed.find((t) => t.name === name);
      if (!found) {
        const offered =
          listed.map((t) => t.name.slice(server.name.length + MCP_TOOL_SEPARATOR.length)).join(', ') || 'none';
        problems.push(
          `MCP server "${server.name}" says tool "${tool}" needs approval, but it lists no such tool (it lists: ${offered})`,
        );
        continue;
      }
      const bad = spec.when
        ? conditionArgProblems(spec.when, { parameters: found.parameters, tool }, `needsApproval.${tool}`)
        : [];
      if (bad.length > 0) problems.push(...bad.map((p) => `MCP server "${server.name}": ${p}`));
      else approvals[name] = spec;
    }
  }
  return { tools, problems, sensitivity, approvals };
}
