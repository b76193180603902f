/** MCP tools declared sensitive or needing approval: on the server by their own names, in the snapshot namespaced, checked against what the server offers. */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src/agents/team';
import { mcpServer } from '../../src/mcp/server';
import { scriptedAgent } from '../helpers/agents';
import { problemsOf } from './problemsOf';

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
