import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src';
import type { ToolCallEvent } from '../../src/audit';
import { Team } from '../../src/agents/team';
import { mcpServer } from '../../src/mcp/server';
import { McpServerUnavailableError } from '../../src/mcp/errors';
import { createWorker } from '../../src/worker';
import { scriptedAgent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { flakyServer, type HttpOrderServer, killFromPidFile, startHttpOrderServer } from './servers';
import { freePort } from '../../src/devserver/ports';

const server = useTemporalServer();
const fast = { retry: { initialInterval: '100 ms', maximumInterval: '200 ms', maximumAttempts: 3 } };
const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-mcp-failures-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function toolAnswers(calls: ReturnType<typeof recordingScripted>['calls']): string[] {
  return calls.at(-1)!.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
}

async function toolEvents(
  baton: { audit(id: string): Promise<{ events: { kind: string }[] }> },
  workflowId: string,
): Promise<ToolCallEvent[]> {
  return (await baton.audit(workflowId)).events.filter((e) => e.kind === 'tool_call') as ToolCallEvent[];
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('an MCP server that dies mid-chain', () => {
  it('stdio: the next call reconnects (a new server process); while it stays down, retries end in a clear tool error', async () => {
    const flaky = flakyServer(dir);
    const sabotage = defineTool({
      name: 'sabotage',
      description: 'Kill the flaky server, and keep it from starting again when asked',
      parameters: z.object({ keepDown: z.boolean() }),
      execute: async ({ keepDown }) => {
        if (keepDown) fs.writeFileSync(flaky.downFile, '');
        return { killed: await killFromPidFile(flaky.pidFile) };
      },
    });
    const steps = [
      call('flaky__whoami'),
      call('sabotage', { keepDown: false }),
      call('flaky__whoami'),
      call('sabotage', { keepDown: true }),
      call('flaky__whoami'),
      { text: 'done' },
    ];
    const { calls, providers } = recordingScripted();
    await withWorker(
      server.env,
      new Team([scriptedAgent('a', steps, { tools: [sabotage], mcpServers: [flaky.server] })]),
      async (baton) => {
        const result = await baton.run('a', 'go', fast);
        const [first, killed, second, , down] = toolAnswers(calls);
        const pid = (answer: string | undefined) => (JSON.parse(answer!) as { pid: number }).pid;
        expect(JSON.parse(killed!)).toEqual({ killed: pid(first) });
        expect(pid(second)).not.toBe(pid(first));
        expect(down).toMatch(
          /^Error: MCP server "flaky" is unavailable: the server closed the connection; its last output: down for maintenance \[stdio: /,
        );
        const whoami = (await toolEvents(baton, result.workflowId)).filter((e) => e.tool === 'flaky__whoami');
        expect(whoami.map((e) => [e.ok, e.execution?.attempts])).toEqual([
          [true, 1],
          [true, 1],
          [false, 3],
        ]);
      },
      { providers },
    );
  });

  it('streamable HTTP: a restarted server (its sessions gone) is reconnected; one that stays down ends in a clear tool error', async () => {
    // Brought back on its port: one below the ephemeral range, which no connection made meanwhile is given.
    let orders: HttpOrderServer = await startHttpOrderServer(await freePort(), { BATON_EXAMPLE_DATA: dir });
    const port = orders.port;
    const sabotage = defineTool({
      name: 'sabotage',
      description: 'Kill the order server, and start it again when asked',
      parameters: z.object({ restart: z.boolean() }),
      execute: async ({ restart }) => {
        await orders.kill();
        if (restart) orders = await startHttpOrderServer(port, { BATON_EXAMPLE_DATA: dir });
        return restart ? 'restarted' : 'killed';
      },
    });
    const lookup = (orderId: string) => call('orders__lookupOrder', { orderId });
    const steps = [
      lookup('1042'),
      call('sabotage', { restart: true }),
      lookup('1043'),
      call('sabotage', { restart: false }),
      lookup('1042'),
      { text: 'done' },
    ];
    const { calls, providers } = recordingScripted();
    try {
      const agent = scriptedAgent('a', steps, {
        tools: [sabotage],
        mcpServers: [mcpServer({ name: 'orders', url: orders.url })],
      });
      await withWorker(
        server.env,
        new Team([agent]),
        async (baton) => {
          const result = await baton.run('a', 'go', fast);
          const [first, , second, , down] = toolAnswers(calls);
          expect(JSON.parse(first!)).toMatchObject({ orderId: '1042' });
          expect(JSON.parse(second!)).toMatchObject({ orderId: '1043' });
          expect(down).toMatch(/^Error: MCP server "orders" is unavailable: .*ECONNREFUSED/);
          const lookups = (await toolEvents(baton, result.workflowId)).filter((e) => e.tool === 'orders__lookupOrder');
          expect(lookups.map((e) => [e.ok, e.execution?.attempts])).toEqual([
            [true, 1],
            [true, 1],
            [false, 3],
          ]);
        },
        { providers },
      );
    } finally {
      await orders.kill();
    }
  });
});

describe('MCP servers that are down when the worker starts', () => {
  it('fail the start by default, naming each server and why', async () => {
    const port = await closedPort();
    const servers = [
      mcpServer({ name: 'ghost', command: 'baton-no-such-mcp-server' }),
      mcpServer({ name: 'web', url: `http://127.0.0.1:${port}/mcp` }),
      mcpServer({ name: 'mute', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }),
    ];
    const team = new Team([scriptedAgent('a', [{ text: 'never' }], { mcpServers: servers })]);
    const failure = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: taskQueue(),
      mcp: { connectTimeout: '1 second' },
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(McpServerUnavailableError);
    expect((failure as McpServerUnavailableError).servers).toEqual([
      { name: 'ghost', reason: expect.stringMatching(/ENOENT/) },
      { name: 'web', reason: expect.stringMatching(/ECONNREFUSED/) },
      { name: 'mute', reason: expect.stringMatching(/timed out/) },
    ]);
  });

  it('start a server slow to start: a try that runs out of time is followed by one with twice the time, and the worker starts with its tools', async () => {
    const warn = vi.spyOn(Runtime.instance().logger, 'warn');
    // Slower than the first try's 2.5 seconds, within the second's 5 (the first try's process is stopped, the second starts anew).
    const slow = flakyServer(dir, 'slow', 3500);
    const { calls, providers } = recordingScripted();
    await withWorker(
      server.env,
      new Team([scriptedAgent('a', [call('slow__whoami'), { text: 'done' }], { mcpServers: [slow.server] })]),
      async (baton) => {
        await baton.run('a', 'go');
        expect(JSON.parse(toolAnswers(calls)[0]!)).toHaveProperty('pid');
      },
      { providers, mcp: { connectTimeout: '2.5 seconds' } },
    );
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /^MCP server "slow" did not start \(try 1 of 3\): .*timed out.*; trying again, waiting up to 5000 ms/,
      ),
      expect.objectContaining({ mcpServer: 'slow', attempt: 1 }),
    );
  });

  it("with onUnavailable: 'skip', start without that server's tools, say which and why, and stop the others with the worker", async () => {
    const warn = vi.spyOn(Runtime.instance().logger, 'warn');
    const flaky = flakyServer(dir, 'up');
    const ghost = mcpServer({ name: 'ghost', command: 'baton-no-such-mcp-server' });
    const { calls, providers } = recordingScripted();
    const agent = scriptedAgent('a', [call('ghost__haunt'), call('up__whoami'), { text: 'done' }], {
      mcpServers: [ghost, flaky.server],
    });
    await withWorker(
      server.env,
      new Team([agent]),
      async (baton) => {
        const result = await baton.run('a', 'go');
        const audit = await baton.audit(result.workflowId);
        expect(audit.team?.agents.a?.tools.map((t) => t.name)).toEqual(['up__whoami', 'up__refuse']);
        const [haunt, whoami] = toolAnswers(calls);
        expect(haunt).toBe('Error: unknown tool "ghost__haunt". Available tools: up__whoami, up__refuse');
        expect(JSON.parse(whoami!)).toHaveProperty('pid');
      },
      { providers, mcp: { onUnavailable: 'skip' } },
    );
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /^MCP server "ghost" is unavailable; this worker starts without its tools: spawn baton-no-such-mcp-server ENOENT/,
      ),
      expect.objectContaining({ mcpServer: 'ghost' }),
    );
    const pid = Number(fs.readFileSync(flaky.pidFile, 'utf8'));
    await waitFor(
      async () => alive(pid),
      (up) => !up,
    );
  });
});
