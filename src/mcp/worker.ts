/**
 * A worker's part in MCP: connect the team's servers when it starts, close them when it stops.
 */
import { Runtime, type Worker } from '@temporalio/worker';
import type { Team } from '../agents/team';
import { McpTools, type McpWorkerOptions } from './tools';

/**
 * Connect every MCP server the team's agents use and list their tools, checking the team with
 * them; `undefined` when no agent uses one. Logs through the Temporal runtime's logger.
 */
export async function connectTeamMcpServers(team: Team, options: McpWorkerOptions = {}): Promise<McpTools | undefined> {
  const servers = team.agents.flatMap((a) => a.mcpServers ?? []);
  if (servers.length === 0) return undefined;
  const logger = Runtime.instance().logger;
  const tools = await McpTools.connect(servers, options, { warn: (m, meta) => logger.warn(m, meta), debug: (m, meta) => logger.debug(m, meta) });
  try {
    team.spec({ mcpTools: tools.specs });
  } catch (err) {
    await tools.close();
    throw err;
  }
  return tools;
}

/**
 * The worker `create` makes, closing `tools` when it stops (`runUntil` runs through `run`, so both
 * close them), or at once when it cannot be made.
 */
export async function withMcpServers(tools: McpTools | undefined, create: () => Promise<Worker>): Promise<Worker> {
  if (!tools) return create();
  let worker: Worker;
  try {
    worker = await create();
  } catch (err) {
    await tools.close();
    throw err;
  }
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      return await run();
    } finally {
      await tools.close();
    }
  };
  return worker;
}
