import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorker, defineAgent, defineTool, scripted } from '../../src';
import { UserError } from '../../src/workflow';
import { Team } from '../../src/agents/team';
import { mcpServer, mcpToolName } from '../../src/mcp/server';
import { McpTools, resultText } from '../../src/mcp/tools';
import { scriptedAgent } from '../helpers/agents';
import { problemsOf } from './problemsOf';

const orders = mcpServer({ name: 'orders', command: 'node', args: ['orders.js'] });
const lookupSpec = {
  name: 'orders__lookupOrder',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
};

describe('mcpServer', () => {
  it('declares stdio and streamable HTTP servers as data', () => {
    expect(orders).toEqual({
      kind: 'mcpServer',
      transport: 'stdio',
      name: 'orders',
      command: 'node',
      args: ['orders.js'],
      env: {},
      inheritEnv: [],
    });
    expect(mcpServer({ name: 'gh', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } })).toEqual({
      kind: 'mcpServer',
      transport: 'http',
      name: 'gh',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer x' },
    });
  });

  it('names every problem of a declaration', () => {
    expect(problemsOf(() => mcpServer({ name: 'a__b', command: 'node', url: 'x' } as never))).toEqual([
      expect.stringMatching(/^name "a__b" must start with a letter/),
      'give either command (a stdio server) or url (a streamable HTTP server)',
    ]);
    expect(problemsOf(() => mcpServer({ name: 'web', url: 'ftp://example.com', args: ['x'] } as never))).toEqual([
      'url must be an http or https URL, got "ftp://example.com"',
      'args is for stdio servers (command)',
    ]);
    expect(problemsOf(() => mcpServer({ name: 'transfer_to_x', command: 'node', env: { A: 1 } } as never))).toEqual([
      expect.stringMatching(/starts like baton's built-in tools/),
      'env must be an object of strings',
    ]);
    expect(problemsOf(() => mcpServer({ name: 'orders_', command: '' }))).toHaveLength(2);
  });

  it('names each field of the wrong type, and fields of the other transport', () => {
    expect(
      problemsOf(() =>
        mcpServer({
          name: 'orders',
          command: 'node',
          args: 'orders.js',
          inheritEnv: [1],
          cwd: 7,
          headers: {},
        } as never),
      ),
    ).toEqual([
      'args must be a list of strings',
      'inheritEnv must be a list of variable names',
      'cwd must be a string',
      'headers are for HTTP servers (url)',
    ]);
    expect(
      problemsOf(() =>
        mcpServer({
          name: 'web',
          url: 'https://example.com/mcp',
          headers: { Authorization: 1 },
          env: {},
          cwd: '/',
        } as never),
      ),
    ).toEqual([
      'headers must be an object of strings',
      'env is for stdio servers (command)',
      'cwd is for stdio servers (command)',
    ]);
    expect(problemsOf(() => mcpServer({ name: 'web' } as never))).toEqual([
      'give either command (a stdio server) or url (a streamable HTTP server)',
    ]);
  });
});

describe('mcpToolName', () => {
  it('namespaces by server, with the characters models accept, at most 64 long and stable', () => {
    expect(mcpToolName('orders', 'lookupOrder')).toBe('orders__lookupOrder');
    expect(mcpToolName('fs', 'read.file/v2')).toBe('fs__read_file_v2');
    const long = mcpToolName('orders', 'x'.repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toBe(mcpToolName('orders', 'x'.repeat(80)));
    expect(long).not.toBe(mcpToolName('orders', 'x'.repeat(81)));
  });
});

describe('a team with MCP servers', () => {
  it('refuses an agent listing one server name twice', () => {
    expect(
      problemsOf(() => defineAgent({ id: 'a', instructions: 'x', model: scripted([]), mcpServers: [orders, orders] })),
    ).toEqual(['Invalid agent "a": mcpServers lists two servers named "orders"']);
    expect(() =>
      defineAgent({ id: 'a', instructions: 'x', model: scripted([]), mcpServers: [{ name: 'orders' }] as never }),
    ).toThrow(/mcpServers must be a list made with mcpServer\(\)/);
  });

  it("names a local tool that clashes with a server's namespace, and two different servers under one name", () => {
    const clashing = defineTool({
      name: 'orders__lookupOrder',
      description: 'local',
      parameters: z.object({}),
      execute: () => 'x',
    });
    const other = mcpServer({ name: 'orders', url: 'http://localhost:1/mcp' });
    const problems = problemsOf(
      () =>
        new Team([
          scriptedAgent('a', [], { tools: [clashing], mcpServers: [orders] }),
          scriptedAgent('b', [], { mcpServers: [other] }),
        ]),
    );
    expect(problems).toEqual([
      'agent "a" has a tool named "orders__lookupOrder", which clashes with the tools of its MCP server "orders" (orders__…)',
      'agents "a" and "b" declare different MCP servers named "orders"; give them different names',
    ]);
  });

  it("adds the listed tools to each agent's snapshot, after its own, and nothing for a server that was left out", () => {
    const local = defineTool({
      name: 'note',
      description: 'Take a note',
      parameters: z.object({}),
      execute: () => 'ok',
    });
    const team = new Team([
      scriptedAgent('a', [], { tools: [local], mcpServers: [orders] }),
      scriptedAgent('b', [], { mcpServers: [orders] }),
    ]);
    const spec = team.spec({ mcpTools: { orders: [lookupSpec] } });
    expect(spec.agents.a?.tools.map((t) => t.name)).toEqual(['note', 'orders__lookupOrder']);
    expect(spec.agents.b?.tools).toEqual([lookupSpec]);
    expect(team.spec({ mcpTools: {} }).agents.a?.tools.map((t) => t.name)).toEqual(['note']);
  });

  it('names tools whose names clash once namespaced', () => {
    const team = new Team([scriptedAgent('a', [], { mcpServers: [orders] })]);
    expect(problemsOf(() => team.spec({ mcpTools: { orders: [lookupSpec, lookupSpec] } }))).toEqual([
      'agent "a" gets two tools named "orders__lookupOrder" (an MCP server\'s tool names clash once namespaced)',
    ]);
  });
});

describe('the worker options', () => {
  it('are checked before anything connects', async () => {
    const failure = await McpTools.connect([orders], {
      onUnavailable: 'maybe' as never,
      connectTimeout: -1,
      connectAttempts: 0.5,
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(UserError);
    expect((failure as UserError<{ problems: string[] }>).details.problems).toEqual([
      '"mcp.onUnavailable" must be "fail" or "skip", got "maybe"',
      expect.stringMatching(/^"mcp.connectTimeout" must be a positive duration/),
      '"mcp.connectAttempts" must be a whole number from 1 to 10, got 0.5',
    ]);
  });

  it('are checked by createWorker before it connects, whether or not an agent uses an MCP server', async () => {
    const team = new Team([scriptedAgent('a', [{ text: 'hi' }])]);
    const failure = await createWorker({ team, mcp: { onUnavailable: 'skip', connectTimeout: 'soon' } }).catch(
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(UserError);
    expect((failure as UserError<{ problems: string[] }>).details.problems).toEqual([
      expect.stringMatching(/^"mcp.connectTimeout" must be a positive duration/),
    ]);
  });
});

describe('resultText', () => {
  it('keeps text, describes binary content without its data, and falls back to structured content', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toBe('a\n{"type":"image","mimeType":"image/png","bytes":3}');
    expect(resultText({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}');
    expect(resultText({ content: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } }] })).toBe(
      'hello',
    );
  });
});
