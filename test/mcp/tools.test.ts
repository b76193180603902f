import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../../src/audit';
import { mcpServer } from '../../src/mcp/server';
import { ordersServer } from '../../examples/support/team';
import { scriptedAgent } from '../helpers/agents';
import { activitiesInHistory } from '../helpers/history';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { Team } from '../../src/agents/team';
import type { RunToolInput } from '../../src/common/team';
import { flakyServer, type HttpOrderServer, startHttpOrderServer } from './servers';

const server = useTemporalServer();
const lookup = (orderId: unknown) => ({ toolCalls: [{ name: 'orders__lookupOrder', arguments: { orderId } }] });

let dir: string;
let http: HttpOrderServer;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-mcp-test-'));
  process.env.BATON_EXAMPLE_DATA = dir;
  http = await startHttpOrderServer(0, { BATON_EXAMPLE_DATA: dir });
});
afterAll(async () => {
  await http?.kill();
  delete process.env.BATON_EXAMPLE_DATA;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What the model was told for each tool call, in order. */
function toolAnswers(calls: ReturnType<typeof recordingScripted>['calls']): string[] {
  const last = calls.at(-1)!;
  return last.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
}

describe('MCP tools over stdio', () => {
  it('records the discovered tools in history and runs a chain: a lookup, a tool error and invalid arguments go back to the model', async () => {
    const { calls, providers } = recordingScripted();
    const refunds = scriptedAgent(
      'refunds',
      [lookup('1042'), lookup('9999'), lookup(1042), { text: 'Order 1042 was delivered.' }],
      { mcpServers: [ordersServer] },
    );
    await withWorker(
      server.env,
      new Team([refunds]),
      async (baton) => {
        const result = await baton.run('refunds', 'Where is order 1042?');
        expect(result.output).toBe('Order 1042 was delivered.');

        const [found, missing, invalid] = toolAnswers(calls);
        expect(JSON.parse(found!)).toMatchObject({ orderId: '1042', status: 'delivered' });
        expect(missing).toBe('Error: no order 9999');
        expect(invalid).toBe('Error: invalid arguments for orders__lookupOrder: data/orderId must be string');
        expect(calls[0]!.tools.map((t) => t.name)).toEqual(['orders__lookupOrder']);

        const audit = await baton.audit(result.workflowId);
        expect(audit.team?.agents.refunds?.tools).toEqual([
          {
            name: 'orders__lookupOrder',
            description: 'Look up an order by its id',
            parameters: {
              type: 'object',
              properties: { orderId: { type: 'string', description: 'The order id, digits only' } },
              required: ['orderId'],
            },
          },
        ]);
        const events = audit.events.filter((e) => e.kind === 'tool_call') as ToolCallEvent[];
        expect(events.map((e) => [e.tool, e.ok, e.execution?.status, e.execution?.attempts])).toEqual([
          ['orders__lookupOrder', true, 'completed', 1],
          ['orders__lookupOrder', false, 'completed', 1],
          ['orders__lookupOrder', false, 'completed', 1],
        ]);
      },
      { providers },
    );
  });

  it('sends the call idempotency key in _meta, and feeds a server error result back', async () => {
    const { calls, providers } = recordingScripted();
    const flaky = flakyServer(dir);
    const agent = scriptedAgent(
      'a',
      [
        { toolCalls: [{ name: 'flaky__whoami', arguments: {} }] },
        { toolCalls: [{ name: 'flaky__refuse', arguments: { reason: 'closed on Sundays' } }] },
        { text: 'done' },
      ],
      { mcpServers: [flaky.server] },
    );
    await withWorker(
      server.env,
      new Team([agent]),
      async (baton) => {
        const run = await baton.start('a', 'who are you?');
        await run.result();
        const [whoami, refused] = toolAnswers(calls);
        const sent = (await activitiesInHistory(run.handle)).find((a) => a.name === 'runTool')!.input as RunToolInput;
        expect(JSON.parse(whoami!)).toEqual({
          pid: Number(fs.readFileSync(flaky.pidFile, 'utf8')),
          idempotencyKey: sent.idempotencyKey,
        });
        expect(refused).toBe('Error: refused: closed on Sundays');
      },
      { providers },
    );
  });
});

describe('MCP tools over streamable HTTP', () => {
  it('runs a chain with a tool of a server the test started', async () => {
    const { calls, providers } = recordingScripted();
    const orders = mcpServer({ name: 'orders', url: http.url, headers: { 'x-shop': 'baton-test' } });
    const refunds = scriptedAgent('refunds', [lookup('1043'), lookup('77'), { text: 'Order 1043 is on its way.' }], {
      mcpServers: [orders],
    });
    await withWorker(
      server.env,
      new Team([refunds]),
      async (baton) => {
        const result = await baton.run('refunds', 'Where is order 1043?');
        expect(result.output).toBe('Order 1043 is on its way.');
        const [found, missing] = toolAnswers(calls);
        expect(JSON.parse(found!)).toMatchObject({ orderId: '1043', status: 'shipped' });
        expect(missing).toBe('Error: no order 77');
        const audit = await baton.audit(result.workflowId);
        expect(audit.team?.agents.refunds?.tools.map((t) => t.name)).toEqual(['orders__lookupOrder']);
      },
      { providers },
    );
  });

  it('waits for approval of a call to a tool the server declaration says needs it: a rejection reaches the model and stands for the same call, an approved call runs', async () => {
    const { calls, providers } = recordingScripted();
    const orders = mcpServer({
      name: 'orders',
      url: http.url,
      needsApproval: {
        lookupOrder: { when: { arg: 'orderId', op: 'in', value: ['1043', '1077'] }, approvers: ['alice'] },
      },
    });
    const refunds = scriptedAgent(
      'refunds',
      [lookup('1042'), lookup('1043'), lookup('1043'), lookup('1077'), { text: 'Order 1043 is on its way.' }],
      { mcpServers: [orders] },
    );
    await withWorker(
      server.env,
      new Team([refunds]),
      async (baton) => {
        const run = await baton.start('refunds', 'Where is order 1043?');
        const [first] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length > 0,
        );
        expect(first).toMatchObject({
          from: 'refunds',
          to: 'tool:orders__lookupOrder',
          approvers: ['alice'],
          tool: { name: 'orders__lookupOrder', arguments: '{"orderId":"1043"}' },
        });
        await baton.reject(run.workflowId, first!.handoffId, { approver: 'alice', reason: 'not this one' });
        // The same call again is not put to alice a second time; the next one asked about is another call.
        const [second] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length > 0 && p[0]!.handoffId !== first!.handoffId,
        );
        expect(second!.tool).toMatchObject({ arguments: '{"orderId":"1077"}' });
        await baton.approve(run.workflowId, second!.handoffId, { approver: 'alice' });
        const result = await run.result();
        expect(result.output).toBe('Order 1043 is on its way.');
        const [unguarded, rejected, again, approved] = toolAnswers(calls);
        expect(JSON.parse(unguarded!)).toMatchObject({ orderId: '1042' });
        expect(rejected).toContain('not this one');
        expect(again).toMatch(
          /^Not run: the same call to orders__lookupOrder was put to people earlier in this chain and alice rejected it: not this one\. It is not asked again/,
        );
        expect(JSON.parse(approved!)).toMatchObject({ orderId: '1077', status: 'delivered' });
        const ran = (await baton.audit(result.workflowId)).events.filter(
          (e) => e.kind === 'tool_call' && (e as ToolCallEvent).execution?.status === 'completed',
        );
        expect(ran).toHaveLength(2);
      },
      { providers },
    );
  });
});
