/**
 * A worker's part in MCP: connect the team's servers when it starts (the plugin closes them when it stops).
 */
import { Runtime } from '@temporalio/worker';
import type { Team } from '../../agents/team';
import { McpTools, type McpWorkerOptions } from '../../mcp/tools';

/**
 * Connect every MCP server the team's agents use and list their tools, checking the team with
 * them; `undefined` when no agent uses one. Logs through the Temporal runtime's logger.
 */
export async function connectTeamMcpServers(team: Team, options: McpWorkerOptions = {}): Promise<McpTools | undefined> {
  const servers = team.agents.flatMap((a) => a.mcpServers ?? []);
  if (servers.length === 0) return undefined;
  const logger = Runtime.instance().logger;
  const tools = await McpTools.connect(servers, options, {
    warn: (m, meta) => logger.warn(m, meta),
    debug: (m, meta) => logger.debug(m, meta),
  });
  try {
    team.spec({ mcpTools: tools.specs });
  } catch (err) {
    await tools.close();
    throw err;
  }
  return tools;
}
