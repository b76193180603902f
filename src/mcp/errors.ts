/**
 * The errors of baton's MCP support, apart from the SDK so that declaring servers and catching
 * these loads nothing of it.
 */
import { SystemError } from '../common/errors';

/** MCP servers the worker could not reach when it started, each with why. */
export class McpServerUnavailableError extends SystemError<{ servers: { name: string; reason: string }[] }> {
  declare readonly servers: { name: string; reason: string }[];
  constructor(servers: { name: string; reason: string }[]) {
    super(`MCP servers unavailable: ${servers.map((s) => `"${s.name}": ${s.reason}`).join('; ')}`, { servers });
  }
}

/**
 * An MCP server that cannot be reached during a tool call: not started, gone, or refusing the
 * connection. The `runTool` activity throws it to be retried by the run's retry policy (its last
 * attempt tells the model instead); `retryable: false` when retrying cannot help (the server
 * refuses baton's credentials).
 */
export class McpConnectionError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly retryable = true,
    cause?: unknown,
  ) {
    super(`MCP server "${server}" is unavailable: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
  }
}
