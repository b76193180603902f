/**
 * The shop's order system as an MCP server, written with the official SDK: one tool,
 * `lookupOrder`, which the support team's refunds agent calls as `orders__lookupOrder`.
 *
 *   node orders.js                 serves MCP over stdin/stdout (the worker starts it)
 *   node orders.js --http [port]   serves streamable HTTP at http://127.0.0.1:<port>/mcp
 *
 * Like `../support/orders.ts`, each server process starts from the catalogue; refunds are issued by
 * the worker into the refund ledger, and one recorded since this server started shows its order as
 * refunded. Each call's idempotency key arrives in `_meta["baton/idempotencyKey"]`: a lookup has no
 * side effect to protect, but a server that changes things would deduplicate on it.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { currentOrder } from '../support/orders';

/** A new MCP server with the order tools; one per connection (HTTP sessions each get their own). */
export function orderServer(): McpServer {
  const server = new McpServer({ name: 'baton-example-orders', version: '1.0.0' });
  server.registerTool(
    'lookupOrder',
    {
      description: 'Look up an order by its id',
      inputSchema: { orderId: z.string().describe('The order id, digits only') },
    },
    ({ orderId }) => {
      const order = currentOrder(orderId);
      if (!order) return { content: [{ type: 'text', text: `no order ${orderId}` }], isError: true };
      return { content: [{ type: 'text', text: JSON.stringify(order) }] };
    },
  );
  return server;
}

/** Serve over stdin/stdout until the client closes them. */
async function serveStdio(): Promise<void> {
  // A worker that dies without closing us only closes our stdin: leave with it.
  process.stdin.on('end', () => process.exit(0));
  await orderServer().connect(new StdioServerTransport());
}

/** Serve streamable HTTP with a session per client, on `port` (0: any free one); prints the URL. */
async function serveHttp(port: number): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport && typeof id === 'string')
        return void res.writeHead(404, { 'content-type': 'application/json' }).end(rpcError('Session not found'));
      if (!transport) {
        if (!isInitializeRequest(body))
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(rpcError('No session: initialize first'));
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, created),
        });
        created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
        await orderServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(rpcError(String(err)));
    }
  });
  await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  const address = httpServer.address() as { port: number };
  process.stdout.write(`orders MCP server at http://127.0.0.1:${address.port}/mcp\n`);
}

function rpcError(message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

if (require.main === module) {
  const at = process.argv.indexOf('--http');
  const serving = at >= 0 ? serveHttp(Number(process.argv[at + 1] ?? 0)) : serveStdio();
  serving.catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
