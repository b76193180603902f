/**
 * The team's tools for an MCP client, each under the identity the client's bearer token proved:
 * start a chain (following it with progress notifications), send a conversation a message, list
 * what waits for the caller, decide it, read a chain's audit; and `baton://runs/{workflowId}`, a
 * chain as a resource the client can poll.
 */
import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { formatTimeline } from '../../audit/format';
import { redactPending } from '../../client/sensitive';
import { tenantPrefix } from '../../common/tenant';
import { mayDecide, Permission, requirePermission, type TokenChecked } from '../auth';
import type { ServiceContext } from '../context';
import { decideAs } from '../decisions';
import { kindOf, mustBeChain } from '../kinds';
import { HttpProblem, toProblem } from '../problems';
import { startAs } from '../runs';
import { runView } from '../runView';
import { mustBeCallersTenant } from '../tenancy';
import { followForProgress, type Progress } from './progress';

/** How long `start_chain` and `decide` follow the chain when the client does not say. @default 60 seconds */
const DEFAULT_WAIT_SECONDS = 60;

const RUN_URI = 'baton://runs/{workflowId}';

/** An MCP server for one request's caller. */
export function batonMcpServer(ctx: ServiceContext, caller: TokenChecked, version: string): McpServer {
  const server = new McpServer({ name: 'baton', version }, { capabilities: { logging: {} } });
  const identity = caller.identity;

  server.registerTool(
    'start_chain',
    {
      description:
        'Start a chain: the team works on `input` from `agent` (the first agent when left out). Follows it for up to `waitSeconds` with progress notifications and answers where it is: ' +
        'completed with its output, failed, or waiting for a person (the approvals, which `decide` answers). Poll baton://runs/<workflowId> for a chain still working.',
      inputSchema: {
        input: z.string().min(1).describe('The request'),
        agent: z.string().min(1).optional(),
        waitSeconds: z.number().int().min(0).max(600).optional(),
      },
    },
    async ({ input, agent, waitSeconds }, extra) =>
      answer(async () => {
        const first = agent ?? ctx.agents?.[0];
        if (!first) throw invalid('name the agent to start with ("agent"): the service does not list its agents');
        const { workflowId } = await startAs(ctx, identity, { agent: first, input }, `baton-${first}-${randomUUID()}`);
        await followForProgress(ctx, workflowId, waitSeconds ?? DEFAULT_WAIT_SECONDS, progressOf(extra), extra.signal);
        return chainNow(ctx, workflowId, caller);
      }),
  );

  server.registerTool(
    'send_message',
    {
      description:
        'Send a conversation a message and answer with its reply; `conversationId` left out starts a new conversation with `agent`. A turn that waits for a person answers with where it waits (see list_waiting).',
      inputSchema: {
        message: z.string().min(1),
        conversationId: z.string().min(1).max(1000).optional(),
        agent: z.string().min(1).optional(),
        waitSeconds: z.number().int().min(0).max(600).optional(),
      },
    },
    async ({ message, conversationId, agent, waitSeconds }, extra) =>
      answer(async () => {
        requirePermission(identity, Permission.START);
        const first = agent ?? ctx.agents?.[0];
        if (!first) throw invalid('name the agent to start the conversation with ("agent")');
        if (ctx.agents && !ctx.agents.includes(first))
          throw invalid(`no agent "${first}": "agent" must be one of ${ctx.agents.join(', ')}`);
        // The caller's tenant's conversations only, as over HTTP: an id outside it is refused, another tenant's answers as none does, before its kind is told.
        const id = conversationId;
        if (id !== undefined && identity.tenant !== undefined && !id.startsWith(tenantPrefix(identity.tenant))) {
          throw invalid(
            `"conversationId" must begin "${tenantPrefix(identity.tenant)}": ${identity.name} acts for tenant "${identity.tenant}", whose conversations have ids that begin so; got "${id}"`,
          );
        }
        if (id !== undefined) await mustBeCallersTenant(ctx, identity, id, 'conversation');
        const kind = id !== undefined ? await kindOf(ctx, id) : undefined;
        if (kind !== undefined && kind !== 'conversation')
          throw invalid(
            `${id} is a ${kind} workflow, not a conversation; give a new conversation an id of its own or leave conversationId out`,
          );
        await ctx.payloadLimit.check('The message', { message });
        // A new conversation is the caller's tenant's: its id begins with the tenant.
        const chat = ctx.baton.conversation(first, {
          ...(id !== undefined ? { id } : {}),
          ...(identity.tenant !== undefined ? { options: { tenant: identity.tenant } } : {}),
        });
        const reply = chat.send(message);
        const ms = (waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000;
        const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());
        const replied = await Promise.race([
          reply,
          timer,
          new Promise<undefined>((resolve) => extra.signal.addEventListener('abort', () => resolve(undefined))),
        ]);
        // A reply still on its way is kept: it is awaited so its failure is not left unhandled.
        if (!replied) reply.catch((err: unknown) => ctx.log('a conversation message sent over MCP failed', err));
        const waiting = replied ? [] : await waitingIn(ctx, chat.id, caller);
        return {
          conversationId: chat.id,
          ...(replied
            ? { reply: replied }
            : {
                status: 'working',
                waiting: waiting.map((p) => (mayDecide(identity, p.approvers) ? p : redactPending(p))),
              }),
        };
      }),
  );

  server.registerTool(
    'list_waiting',
    {
      description:
        'What waits for you: the handoffs and tool calls, across chains, that your identity may decide, oldest first.',
      inputSchema: {},
    },
    async () =>
      answer(async () => {
        requirePermission(identity, Permission.READ);
        // Whoever it is for, the caller's own tenant's chains only.
        const pending = await ctx.baton.pending({ reveal: true, tenant: identity.tenant ?? null });
        return { approvals: pending.filter((p) => mayDecide(identity, p.approvers)) };
      }),
  );

  server.registerTool(
    'decide',
    {
      description:
        "Approve or reject what waits in a chain or a conversation's turn, as your token's identity (which the policy's approvers must name). Then follows a chain for up to `waitSeconds` and answers where it is; for a conversation, answers what still waits in it.",
      inputSchema: {
        workflowId: z.string().min(1).max(1000),
        decision: z.enum(['approve', 'reject']),
        approvalId: z.string().min(1).max(1000).optional().describe('Needed when several approvals wait in the chain'),
        comment: z.string().max(10_000).optional(),
        arguments: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('Tool calls: the arguments to run the call with'),
        callHash: z.string().optional(),
        waitSeconds: z.number().int().min(0).max(600).optional(),
      },
    },
    async ({ workflowId, waitSeconds, ...decision }, extra) =>
      answer(async () => {
        const record = await decideAs(ctx, caller, workflowId, decision);
        // A conversation's approval is decided the same way; its turn is followed with send_message, not here.
        if ((await kindOf(ctx, workflowId)) === 'conversation')
          return { decided: record, conversation: { workflowId, waiting: await waitingIn(ctx, workflowId, caller) } };
        await followForProgress(
          ctx,
          workflowId,
          waitSeconds ?? DEFAULT_WAIT_SECONDS,
          progressOf(extra),
          extra.signal,
          record.handoffId,
        );
        return { decided: record, chain: await chainNow(ctx, workflowId, caller) };
      }),
  );

  server.registerTool(
    'read_audit',
    {
      description:
        'A chain rebuilt from its workflow history: every model turn, tool call, handoff and approval decision (who, when). `format` json (default) or timeline (text).',
      inputSchema: { workflowId: z.string().min(1).max(1000), format: z.enum(['json', 'timeline']).optional() },
    },
    async ({ workflowId, format }) => {
      try {
        requirePermission(identity, Permission.READ);
        await mustBeCallersTenant(ctx, identity, workflowId);
        await mustBeChain(ctx, workflowId);
        const chain = await ctx.baton.audit(workflowId);
        if (format === 'timeline') return { content: [{ type: 'text', text: formatTimeline(chain) }] };
        return json(chain);
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerResource(
    'chain',
    new ResourceTemplate(RUN_URI, { list: undefined }),
    {
      description: 'A chain: status, current agent, what waits for approval, the answer or the error',
      mimeType: 'application/json',
    },
    async (uri, { workflowId }) => {
      requirePermission(identity, Permission.READ);
      const view = await runView(ctx, String(workflowId), identity);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(view) }] };
    },
  );
  return server;
}

/** Where a chain is, as the caller may see it, with the resource to poll. */
/** What still waits in conversation `workflowId` that the caller may see. */
async function waitingIn(ctx: ServiceContext, workflowId: string, caller: TokenChecked) {
  return (await ctx.baton.pending({ tenant: caller.identity.tenant ?? null })).filter(
    (p) => p.workflowId === workflowId || p.rootWorkflowId === workflowId,
  );
}

async function chainNow(ctx: ServiceContext, workflowId: string, caller: TokenChecked) {
  const view = await runView(ctx, workflowId, caller.identity);
  return {
    workflowId,
    status: view.status,
    ...(view.currentAgent ? { agent: view.currentAgent } : {}),
    ...(view.pendingApprovals.length > 0 ? { waiting: view.pendingApprovals } : {}),
    ...(view.output !== undefined ? { output: view.output } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
    resource: RUN_URI.replace('{workflowId}', encodeURIComponent(workflowId)),
  };
}

function progressOf(extra: {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: never) => Promise<void>;
}): Progress | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, message) =>
    extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress, message },
    } as never);
}

async function answer(fn: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return json(await fn());
  } catch (err) {
    return failure(err);
  }
}

function json(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A refusal or a failure as the tool's error, naming the problem (the REST API's problem details). */
function failure(err: unknown): CallToolResult {
  const problem = toProblem(err);
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${problem.status} ${problem.title}: ${problem.message}${problem.errors?.length ? ` (${problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : ''}`,
      },
    ],
  };
}

function invalid(detail: string): HttpProblem {
  return new HttpProblem(400, 'Invalid request', detail);
}
