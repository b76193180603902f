/** The team as an MCP server: an MCP client from `@modelcontextprotocol/sdk` through `baton serve`, on a real Temporal server and worker. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { BatonTenant } from '../../src/common/messages';
import type { StaticToken } from '../../src/server';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { STATIC_TOKENS, TOKENS, withService } from './service';
import { lookupOrder, refundTeam } from './team';

const server = useTemporalServer();

async function mcpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'baton-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

type ToolAnswer = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  progress?: string[],
): Promise<ToolAnswer> {
  return (await client.callTool(
    { name, arguments: args },
    undefined,
    progress ? { onprogress: (p) => progress.push(p.message ?? '') } : {},
  )) as ToolAnswer;
}

describe('a team as an MCP server', () => {
  it('starts a chain with progress, says it waits, lists it for its approver, refuses another, decides it and reads the answer and the audit', async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const ops = await mcpClient(service.url, TOKENS.ops);
      const alice = await mcpClient(service.url, TOKENS.alice);
      const bob = await mcpClient(service.url, TOKENS.bob);
      try {
        expect((await ops.listTools()).tools.map((t) => t.name).sort()).toEqual([
          'decide',
          'list_waiting',
          'read_audit',
          'send_message',
          'start_chain',
        ]);
        const progress: string[] = [];
        const started = await callTool(
          ops,
          'start_chain',
          { agent: 'triage', input: 'My order 42 arrived broken.', waitSeconds: 60 },
          progress,
        );
        expect(started.isError).toBeFalsy();
        const chain = started.structuredContent as {
          workflowId: string;
          status: string;
          waiting: { handoffId: string; from: string; to: string }[];
          resource: string;
        };
        expect(chain.status).toBe('awaiting_approval');
        expect(chain.waiting).toEqual([expect.objectContaining({ from: 'triage', to: 'refunds' })]);
        expect(progress).toContain('triage answered');
        expect(progress.at(-1)).toMatch(/^waiting for approval .*: triage → refunds$/);

        const forAlice = (await callTool(alice, 'list_waiting', {})).structuredContent as {
          approvals: { workflowId: string }[];
        };
        expect(forAlice.approvals.map((a) => a.workflowId)).toContain(chain.workflowId);
        const forOps = (await callTool(ops, 'list_waiting', {})).structuredContent as {
          approvals: { workflowId: string }[];
        };
        expect(forOps.approvals.map((a) => a.workflowId)).not.toContain(chain.workflowId);

        const refused = await callTool(bob, 'decide', { workflowId: chain.workflowId, decision: 'approve' });
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toBe('403 Forbidden: bob may not decide this handoff (approvers: alice)');
        const byStarter = await callTool(ops, 'decide', { workflowId: chain.workflowId, decision: 'approve' });
        expect(byStarter.content[0]!.text).toMatch(/^403 Forbidden: ops may not decide approvals/);

        const decided = (
          await callTool(
            alice,
            'decide',
            { workflowId: chain.workflowId, decision: 'approve', comment: 'photos attached' },
            [],
          )
        ).structuredContent as {
          decided: { outcome: string; approver: string };
          chain: { status: string; output: string };
        };
        expect(decided.decided).toMatchObject({ outcome: 'approved', approver: 'alice' });
        expect(decided.chain).toMatchObject({ status: 'completed', output: 'Refunded order 42.' });

        const resource = await ops.readResource({ uri: chain.resource });
        expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({
          workflowId: chain.workflowId,
          status: 'completed',
          output: 'Refunded order 42.',
        });
        const timeline = await callTool(ops, 'read_audit', { workflowId: chain.workflowId, format: 'timeline' });
        expect(timeline.content[0]!.text).toContain('approved by "alice"');
        const missing = await callTool(ops, 'read_audit', { workflowId: 'no-such-chain' });
        expect(missing.content[0]!.text).toBe('404 Not found: no chain no-such-chain');
      } finally {
        await Promise.all([ops.close(), alice.close(), bob.close()]);
      }
    });
  });

  it("decides an approval a conversation's turn waits for, answering with what still waits in it", async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const ops = await mcpClient(service.url, TOKENS.ops);
      const alice = await mcpClient(service.url, TOKENS.alice);
      try {
        const sent = (
          await callTool(ops, 'send_message', {
            agent: 'triage',
            message: 'My order 42 arrived broken.',
            waitSeconds: 5,
          })
        ).structuredContent as { conversationId: string; waiting: { handoffId: string }[] };
        expect(sent.waiting).toHaveLength(1);
        const decided = await callTool(alice, 'decide', { workflowId: sent.conversationId, decision: 'approve' });
        expect(decided.isError).toBeFalsy();
        expect(decided.structuredContent).toMatchObject({
          decided: { outcome: 'approved', approver: 'alice' },
          conversation: { workflowId: sent.conversationId, waiting: [] },
        });
        const again = await callTool(alice, 'decide', { workflowId: sent.conversationId, decision: 'approve' });
        expect(again.isError).toBe(true);
      } finally {
        await Promise.all([ops.close(), alice.close()]);
      }
    });
  });

  it('sends a conversation messages, the second continuing the first; refuses callers without a token', async () => {
    const team = new Team([
      scriptedAgent('helper', [{ text: 'Hello, how can I help?' }, { text: 'Order 42 ships tomorrow.' }]),
    ]);
    await withService(server.env, team, async ({ service }) => {
      const anonymous = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);
      const ops = await mcpClient(service.url, TOKENS.ops);
      try {
        const first = (await callTool(ops, 'send_message', { message: 'Hi' })).structuredContent as {
          conversationId: string;
          reply: { output: string; turn: number };
        };
        expect(first.reply).toMatchObject({ output: 'Hello, how can I help?', turn: 1 });
        const second = (
          await callTool(ops, 'send_message', { message: 'Where is order 42?', conversationId: first.conversationId })
        ).structuredContent as { reply: { output: string; turn: number } };
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

  it("keeps a tenant's token to its tenant's conversations, waiting approvals and audits, as the HTTP service does", async () => {
    const T = { acme: 'mcp-acme-ops', globex: 'mcp-globex-ops', acmeAlice: 'mcp-acme-alice' } as const;
    const tokens: StaticToken[] = [
      ...STATIC_TOKENS,
      { token: T.acme, identity: 'acme-ops', roles: ['starter'], tenant: 'acme' },
      { token: T.globex, identity: 'globex-ops', roles: ['starter'], tenant: 'globex' },
      { token: T.acmeAlice, identity: 'alice', roles: ['approver'], tenant: 'acme' },
    ];
    const team = new Team([
      scriptedAgent('helper', [{ text: 'Hello.' }, { text: 'Second answer.' }]),
      scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'Refund order 42.' } }]),
      scriptedAgent('refunds', [{ text: 'Refunded order 42.' }], {
        tools: [lookupOrder],
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const clients = await Promise.all(
          [T.acme, T.globex, TOKENS.ops, T.acmeAlice, TOKENS.alice].map((t) => mcpClient(service.url, t)),
        );
        const [acme, globex, plain, acmeAlice, plainAlice] = clients as [Client, Client, Client, Client, Client];
        const send = async (client: Client, args: Record<string, unknown>) =>
          callTool(client, 'send_message', { agent: 'helper', waitSeconds: 60, ...args });
        const tenantOf = async (id: string) =>
          (await baton.client.workflow.getHandle(id).describe()).typedSearchAttributes.get(BatonTenant);
        try {
          // A new conversation is the caller's tenant's: its id begins with the tenant and BatonTenant names it.
          const first = (await send(globex, { message: 'Hi' })).structuredContent as {
            conversationId: string;
            reply: { output: string; turn: number };
          };
          expect(first.conversationId).toMatch(/^globex\//);
          expect(first.reply).toMatchObject({ output: 'Hello.', turn: 1 });
          expect(await tenantOf(first.conversationId)).toBe('globex');

          // Another tenant's conversation is not the caller's to reach: an id outside the caller's tenant is refused, and for a
          // caller without a tenant it answers as a conversation that does not exist; nothing reaches it.
          const fromAcme = await send(acme, { message: 'Leak it.', conversationId: first.conversationId });
          expect(fromAcme.isError).toBe(true);
          expect(fromAcme.content[0]!.text).toBe(
            `400 Invalid request: "conversationId" must begin "acme/": acme-ops acts for tenant "acme", whose conversations have ids that begin so; got "${first.conversationId}"`,
          );
          const fromPlain = await send(plain, { message: 'Leak it.', conversationId: first.conversationId });
          expect(fromPlain.content[0]!.text).toBe(`404 Not found: no conversation ${first.conversationId}`);
          const second = (await send(globex, { message: 'Again', conversationId: first.conversationId }))
            .structuredContent as { reply: { output: string; turn: number } };
          expect(second.reply).toMatchObject({ output: 'Second answer.', turn: 2 });
          // A conversation the caller names in its own tenant starts there.
          const named = (await send(acme, { message: 'Hi', conversationId: 'acme/mcp-chat-1' })).structuredContent as {
            conversationId: string;
          };
          expect(named.conversationId).toBe('acme/mcp-chat-1');
          expect(await tenantOf(named.conversationId)).toBe('acme');

          // A chain of acme waits for alice: acme's alice finds it, an alice without a tenant does not, and its audit is acme's alone.
          const chain = (
            await callTool(acme, 'start_chain', {
              agent: 'triage',
              input: 'My order 42 arrived broken.',
              waitSeconds: 60,
            })
          ).structuredContent as { workflowId: string; status: string };
          expect(chain).toMatchObject({ workflowId: expect.stringMatching(/^acme\//), status: 'awaiting_approval' });
          const waitingFor = async (client: Client) =>
            (
              (await callTool(client, 'list_waiting', {})).structuredContent as { approvals: { workflowId: string }[] }
            ).approvals.map((a) => a.workflowId);
          await waitFor(
            () => waitingFor(acmeAlice),
            (ids) => ids.includes(chain.workflowId),
          );
          expect(await waitingFor(plainAlice)).not.toContain(chain.workflowId);
          for (const client of [globex, plain]) {
            expect((await callTool(client, 'read_audit', { workflowId: chain.workflowId })).content[0]!.text).toBe(
              `404 Not found: no chain ${chain.workflowId}`,
            );
          }
          expect((await callTool(acme, 'read_audit', { workflowId: chain.workflowId })).isError).toBeFalsy();
        } finally {
          await Promise.all(clients.map((c) => c.close()));
        }
      },
      { service: { auth: { tokens } } },
    );
  });
});
