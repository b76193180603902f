/**
 * The team as an MCP server on the service: the streamable HTTP transport at `/mcp`, stateless (a
 * server per request, so any instance answers any call), under the identity of the bearer token
 * the MCP client sends.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Authenticator } from '../auth';
import type { ServiceApp, ServiceContext } from '../context';
import { bodySizeLimit } from '../limits';
import { batonMcpServer } from './tools';

const VERSION = '1';

/** Serve the team's MCP tools at `/mcp`. */
export function mcpRoutes(
  app: ServiceApp,
  ctx: ServiceContext,
  authenticator: Authenticator,
  maxBodyBytes: number,
): void {
  app.all('/mcp', bodySizeLimit(maxBodyBytes), async (c) => {
    const caller = await authenticator.check(c.req.header('authorization'));
    const server = batonMcpServer(ctx, caller, VERSION);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, {
      authInfo: {
        token: '',
        clientId: caller.token.sub,
        scopes: caller.identity.roles,
        extra: { identity: caller.identity.name },
      },
    });
  });
}
