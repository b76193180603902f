/**
 * The team's MCP connections, shared by the workers one plugin configures: connected when the first
 * is created, closed when the last one stops (or its creation failed).
 */
import type { Team } from '../../agents/team';
import type { McpTools, McpWorkerOptions } from '../../mcp/tools';
import { connectTeamMcpServers } from './mcpConnect';

/** The team's MCP servers, connected while a worker holds them and closed when the last lets go. */
export class McpLease {
  private tools?: Promise<McpTools | undefined>;
  private holders = 0;

  constructor(
    private readonly team: Team,
    private readonly options: McpWorkerOptions | undefined,
  ) {}

  /** The connected servers' tools (`undefined` when no agent uses an MCP server); each call holds them until {@link release}. */
  async acquire(): Promise<McpTools | undefined> {
    this.holders++;
    try {
      return await (this.tools ??= connectTeamMcpServers(this.team, this.options));
    } catch (err) {
      this.holders--;
      this.tools = undefined;
      throw err;
    }
  }

  /** Give back one hold; the last closes the connections. */
  async release(): Promise<void> {
    if (this.holders === 0) return;
    this.holders--;
    if (this.holders > 0 || !this.tools) return;
    const tools = this.tools;
    this.tools = undefined;
    await (await tools.catch(() => undefined))?.close();
  }
}
