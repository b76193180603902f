/** The team as an MCP server: an MCP client from `@modelcontextprotocol/sdk` through `baton serve`, on a real Temporal server and worker. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();

async function mcpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'baton-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

type ToolAnswer = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

async function callTool(client: Client, name: string, args: Record<string, unknown>, progress?: string[]): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args }, undefined, progress ? { onprogress: (p) => progress.push(p.message ?? '') } : {})) as ToolAnswer;
}

describe('a team as an MCP server', () => {
  it('starts a chain with progress, says it waits, lists it for its approver, refuses another, decides it and reads the answer and the audit', async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const ops = await mcpClient(service.url, TOKENS.ops);
      const alice = await mcpClient(service.url, TOKENS.alice);
      const bob = await mcpClient(service.url, TOKENS.bob);
      try {
        expect((await ops.listTools()).tools.map((t) => t.name).sort()).toEqual(['decide', 'list_waiting', 'read_audit', 'send_message', 'start_chain']);
        const progress: string[] = [];
        const started = await callTool(ops, 'start_chain', { agent: 'triage', input: 'My order 42 arrived broken.', waitSeconds: 60 }, progress);
        expect(started.isError).toBeFalsy();
        const chain = started.structuredContent as { workflowId: string; status: string; waiting: { handoffId: string; from: string; to: string }[]; resource: string };
        expect(chain.status).toBe('awaiting_approval');
        expect(chain.waiting).toEqual([expect.objectContaining({ from: 'triage', to: 'refunds' })]);
        expect(progress).toContain('triage answered');
        expect(progress.at(-1)).toMatch(/^waiting for approval .*: triage → refunds$/);

        const forAlice = (await callTool(alice, 'list_waiting', {})).structuredContent as { approvals: { workflowId: string }[] };
        expect(forAlice.approvals.map((a) => a.workflowId)).toContain(chain.workflowId);
        const forOps = (await callTool(ops, 'list_waiting', {})).structuredContent as { approvals: { workflowId: string }[] };
        expect(forOps.approvals.map((a) => a.workflowId)).not.toContain(chain.workflowId);

        const refused = await callTool(bob, 'decide', { workflowId: chain.workflowId, decision: 'approve' });
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toBe('403 Forbidden: bob may not decide this handoff (approvers: alice)');
        const byStarter = await callTool(ops, 'decide', { workflowId: chain.workflowId, decision: 'approve' });
        expect(byStarter.content[0]!.text).toMatch(/^403 Forbidden: ops may not decide approvals/);

        const decided = (await callTool(alice, 'decide', { workflowId: chain.workflowId, decision: 'approve', comment: 'photos attached' }, [])).structuredContent as {
          decided: { outcome: string; approver: string };
          chain: { status: string; output: string };
        };
        expect(decided.decided).toMatchObject({ outcome: 'approved', approver: 'alice' });
        expect(decided.chain).toMatchObject({ status: 'completed', output: 'Refunded order 42.' });

        const resource = await ops.readResource({ uri: chain.resource });
        expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ workflowId: chain.workflowId, status: 'completed', output: 'Refunded order 42.' });
        const timeline = await callTool(ops, 'read_audit', { workflowId: chain.workflowId, format: 'timeline' });
        expect(timeline.content[0]!.text).toContain('approved by "alice"');
        const missing = await callTool(ops, 'read_audit', { workflowId: 'no-such-chain' });
        expect(missing.content[0]!.text).toBe('404 Not found: no chain no-such-chain');
      } finally {
        await Promise.all([ops.close(), alice.close(), bob.close()]);
      }
    });
  });

  it('sends a conversation messages, the second continuing the first; refuses callers without a token', async () => {
    const team = new Team([scriptedAgent('helper', [{ text: 'Hello, how can I help?' }, { text: 'Order 42 ships tomorrow.' }])]);
    await withService(server.env, team, async ({ service }) => {
      const anonymous = await fetch(`${service.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(anonymous.status).toBe(401);
      const ops = await mcpClient(service.url, TOKENS.ops);
      try {
        const first = (await callTool(ops, 'send_message', { message: 'Hi' })).structuredContent as { conversationId: string; reply: { output: string; turn: number } };
        expect(first.reply).toMatchObject({ output: 'Hello, how can I help?', turn: 1 });
        const second = (await callTool(ops, 'send_message', { message: 'Where is order 42?', conversationId: first.conversationId })).structuredContent as { reply: { output: string; turn: number } };
        expect(second.reply).toMatchObject({ output: 'Order 42 ships tomorrow.', turn: 2 });
        const viewer = await mcpClient(service.url, TOKENS.viewer);
        const refused = await callTool(viewer, 'send_message', { message: 'Hi' });
        expect(refused.content[0]!.text).toMatch(/^403 Forbidden: viewer may not start or replay runs/);
        await viewer.close();
      } finally {
        await ops.close();
      }
    });
  });
});
