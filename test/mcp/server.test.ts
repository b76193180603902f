import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorker, defineAgent, defineTool, scripted } from '../../src';
import { UserError } from '../../src/workflow';
import { Team } from '../../src/agents/team';
import { mcpServer, mcpToolName } from '../../src/mcp/server';
import { McpTools, resultText } from '../../src/mcp/tools';
import { scriptedAgent } from '../helpers/agents';

const orders = mcpServer({ name: 'orders', command: 'node', args: ['orders.js'] });
const lookupSpec = {
  name: 'orders__lookupOrder',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
};

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof UserError) return (err.details as { problems?: string[] }).problems ?? [err.message];
    throw err;
  }
  return [];
}

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

describe('sensitive MCP tools', () => {
  const crm = mcpServer({
    name: 'crm',
    command: 'node',
    args: ['crm.js'],
    sensitive: { lookupCustomer: { arguments: ['email'], result: ['phone'] }, exportAll: true },
  });
  const customerSpec = {
    name: 'crm__lookupCustomer',
    description: 'Find a customer',
    parameters: {
      type: 'object',
      properties: { email: { type: 'string' }, note: { type: 'string' } },
      required: ['email'],
    },
  };
  const exportSpec = { name: 'crm__exportAll', description: 'Export', parameters: { type: 'object' } };

  it("are declared on the server by the tool's own name, and join the snapshot under the namespaced name, never in the tool spec", () => {
    expect(crm.sensitive).toEqual({
      lookupCustomer: { arguments: ['email'], result: ['phone'] },
      exportAll: { arguments: true, result: true },
    });
    const spec = new Team([scriptedAgent('a', [], { mcpServers: [crm] })]).spec({
      mcpTools: { crm: [customerSpec, exportSpec] },
    });
    expect(spec.agents.a!.toolSensitivity).toEqual({
      crm__lookupCustomer: { arguments: ['email'], result: ['phone'] },
      crm__exportAll: { arguments: true, result: true },
    });
    expect(spec.agents.a!.tools).toEqual([customerSpec, exportSpec]);
  });

  it('refuse a bad declaration when mcpServer is called', () => {
    expect(
      problemsOf(() => mcpServer({ name: 'crm', command: 'node', sensitive: ['lookupCustomer'] as never })),
    ).toEqual([
      "sensitive must be an object of the server's tool names, e.g. { lookupCustomer: { arguments: ['email'] } }, got [\"lookupCustomer\"]",
    ]);
    expect(
      problemsOf(() =>
        mcpServer({
          name: 'crm',
          url: 'http://localhost/mcp',
          sensitive: { lookupCustomer: { arguments: 'email' } as never, other: 1 as never },
        }),
      ),
    ).toEqual([
      'sensitive.lookupCustomer.arguments must be true or a non-empty list of paths like ["cardNumber", "customer.email"], got "email"',
      'sensitive.other must be true (every argument and the whole result) or {arguments?, result?}, got 1',
    ]);
  });

  it('refuse, when the worker lists the tools, a tool the server does not offer and an argument its schema does not have', () => {
    const typo = mcpServer({
      name: 'crm',
      command: 'node',
      sensitive: { lookupCustomr: true, lookupCustomer: { arguments: ['emial'] } },
    });
    const team = new Team([scriptedAgent('a', [], { mcpServers: [typo] })]);
    expect(problemsOf(() => team.spec({ mcpTools: { crm: [customerSpec, exportSpec] } }))).toEqual([
      'MCP server "crm" marks tool "lookupCustomr" sensitive, but it lists no such tool (it lists: lookupCustomer, exportAll)',
      'MCP server "crm": sensitive.lookupCustomer.arguments[0] "emial": not an argument of lookupCustomer (its arguments: email, note)',
    ]);
    // A server left out (unavailable, skipped) lists nothing to check against.
    expect(team.spec({ mcpTools: {} }).agents.a).not.toHaveProperty('toolSensitivity');
  });
});

describe('MCP tools that need approval', () => {
  const customerSpec = {
    name: 'crm__lookupCustomer',
    description: 'Find a customer',
    parameters: {
      type: 'object',
      properties: {
        email: { type: 'string' },
        limit: { type: 'number' },
        tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
      required: ['email'],
    },
  };
  const exportSpec = { name: 'crm__exportAll', description: 'Export', parameters: { type: 'object' } };

  it("are declared on the server by the tool's own name and join the snapshot's tool approvals under the namespaced name", () => {
    const crm = mcpServer({
      name: 'crm',
      command: 'node',
      needsApproval: {
        exportAll: true,
        lookupCustomer: { when: { arg: 'limit', op: '>', value: 10 }, approvers: ['alice'] },
        other: false,
      },
    });
    expect(crm.approvals).toEqual({
      exportAll: {},
      lookupCustomer: { when: [{ arg: 'limit', op: '>', value: 10 }], approvers: ['alice'] },
    });
    const spec = new Team([scriptedAgent('a', [], { mcpServers: [crm] })]).spec({
      mcpTools: { crm: [customerSpec, exportSpec] },
    });
    expect(spec.agents.a!.toolApprovals).toEqual({
      crm__exportAll: {},
      crm__lookupCustomer: { when: [{ arg: 'limit', op: '>', value: 10 }], approvers: ['alice'] },
    });
  });

  it('refuse a bad declaration when mcpServer is called, naming the tool', () => {
    expect(
      problemsOf(() => mcpServer({ name: 'crm', command: 'node', needsApproval: ['exportAll'] as never })),
    ).toEqual([
      'needsApproval must be an object of the server\'s tool names, e.g. { refundOrder: true }, got ["exportAll"]',
    ]);
    const problems = problemsOf(() =>
      mcpServer({
        name: 'crm',
        command: 'node',
        needsApproval: {
          exportAll: 'yes' as never,
          lookupCustomer: { approvers: [], when: { arg: 'limit', op: 'over' as never, value: 1 } },
        },
      }),
    );
    expect(problems).toEqual([
      'needsApproval.exportAll must be true or {when?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}, got "yes"',
      '"needsApproval.lookupCustomer.approvers" is empty, so nobody could approve a call; name who may, or leave it out to let anyone',
      '"needsApproval.lookupCustomer.when[0].op" must be one of ">", ">=", "<", "<=", "==", "!=", "in", "matches", "exists", got "over"',
    ]);
  });

  it('refuse, when the worker lists the tools, a tool the server does not offer and a condition on an argument its schema does not have or inside a list', () => {
    const typo = mcpServer({
      name: 'crm',
      command: 'node',
      needsApproval: {
        exportAl: true,
        lookupCustomer: {
          when: [
            { arg: 'limt', op: '>', value: 1 },
            { arg: 'tags.name', op: '==', value: 'vip' },
          ],
        },
      },
    });
    const team = new Team([scriptedAgent('a', [], { mcpServers: [typo] })]);
    expect(problemsOf(() => team.spec({ mcpTools: { crm: [customerSpec, exportSpec] } }))).toEqual([
      'MCP server "crm" says tool "exportAl" needs approval, but it lists no such tool (it lists: lookupCustomer, exportAll)',
      'MCP server "crm": "needsApproval.lookupCustomer.when[0].arg" "limt": not an argument of lookupCustomer (its arguments: email, limit, tags)',
      'MCP server "crm": "needsApproval.lookupCustomer.when[1].arg" "tags.name": tags is a list, and a condition weighs one value; put the condition on the list itself (e.g. exists)',
    ]);
    expect(team.spec({ mcpTools: {} }).agents.a).not.toHaveProperty('toolApprovals');
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
