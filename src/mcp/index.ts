/**
 * MCP: baton served as an MCP server, and the options and errors of the agents' MCP servers —
 * `import { mcpServer } from 'baton-agents/mcp'`.
 * @packageDocumentation
 * @module baton-agents/mcp
 */
export {
  IDEMPOTENCY_KEY_META,
  mcpServer,
  type McpApprovals,
  type McpHttpServerOptions,
  type McpSensitivity,
  type McpServer,
  type McpStdioServerOptions,
} from './server';
export { McpConnectionError, McpServerUnavailableError } from './errors';
export type { McpWorkerOptions } from './tools';
