/**
 * The inbox over HTTP: what waits for the caller (their identity and groups) across chains, soonest
 * due first, filtered, searched and paged from visibility (`GET /v1/inbox`); and batch decisions,
 * several similar waiting calls decided together, each its own decision bound to its own call and
 * signed on its own (`POST /v1/approvals/batch`).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { InboxOptionError, MAX_INBOX_PAGE, type InboxOptions } from '../client/inbox';
import { MAX_BATCH } from '../client/batch';
import { signDecision } from '../client/signing/sign';
import { redactPending } from '../client/sensitive';
import type { PendingApproval } from '../common/approvals';
import { durationMs } from '../common/check';
import { UserError } from '../common/errors';
import { secured } from './access';
import { mayDecide, Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { jsonBody, problems } from './openapi';
import { countDecision } from './metrics';
import { HttpProblem } from './problems';
import { isCallersTenant, tenantOf } from './tenancy';
import { ApprovalRecordSchema, PendingApprovalSchema } from './approvalSchemas';

const InboxItemSchema = PendingApprovalSchema.extend({
  dueAt: z.string().optional().openapi({ description: 'When it is due (its deadline), if its policy has one' }),
  overdue: z.boolean().openapi({ description: 'Past its deadline' }),
  similarKey: z.string().openapi({
    description: 'What approvals decided together share: `tool:<name>(<argument fields>)` or `handoff:<from>><to>`',
  }),
}).openapi('InboxItem');

const inboxRoute = createRoute({
  operationId: 'listInbox',
  method: 'get',
  path: '/v1/inbox',
  tags: ['approvals'],
  summary: "What waits for the caller's decision across chains, soonest due first, from visibility",
  ...secured(
    Permission.READ,
    "Lists the approvals the caller (or, with `for=all`, anyone) may decide: named among a policy's approvers by identity or group, or open to anyone.",
  ),
  request: {
    query: z.object({
      for: z.enum(['me', 'all']).optional().openapi({ description: "Whose: the caller's (default) or everyone's" }),
      team: z
        .string()
        .max(200)
        .optional()
        .openapi({ description: 'A team id (`support`) or version (`support@2026-11-24`)' }),
      agent: z.string().max(200).optional().openapi({ description: 'The agent whose handoff or tool call waits' }),
      tool: z.string().max(200).optional().openapi({ description: 'The tool whose calls wait' }),
      minAge: z
        .string()
        .max(40)
        .optional()
        .openapi({ description: 'Only approvals waiting at least this long: `10 minutes`, `2h`, or milliseconds' }),
      overdue: z.enum(['true', 'false']).optional().openapi({ description: 'Only approvals past their deadline' }),
      q: z
        .string()
        .max(500)
        .optional()
        .openapi({ description: 'Words each listed approval contains (message, agents, tool, arguments, chain id)' }),
      limit: z
        .string()
        .regex(/^\d+$/)
        .optional()
        .openapi({ description: `Per page, 1 to ${MAX_INBOX_PAGE} (default 50)` }),
      pageToken: z.string().max(2000).optional().openapi({ description: "The page before's `nextPageToken`" }),
    }),
  },
  responses: {
    200: jsonBody(
      z.object({ approvals: z.array(InboxItemSchema), total: z.number(), nextPageToken: z.string().optional() }),
      'One page of the inbox',
    ),
    ...problems(400, 401, 403, 503),
  },
});

const BatchSchema = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z
      .string()
      .max(4000)
      .optional()
      .openapi({ description: 'Recorded with each decision; the reason given to each agent on a rejection' }),
    approvals: z
      .array(
        z.object({
          workflowId: z.string().min(1).max(1000),
          approvalId: z.string().min(1).max(1000),
          callHash: z.string().min(1).max(200).optional(),
          signature: z.string().min(1).max(8000).optional().openapi({
            description:
              "The approver's own JWS over this one decision (docs/signatures.md), as the approvals page signs with a key held in the browser; without it the service signs when it has a key",
          }),
        }),
      )
      .min(1)
      .max(MAX_BATCH)
      .openapi({
        description:
          'The waiting approvals, as the inbox lists them; all alike (one `similarKey`). With `callHash`, a call that changed since is refused.',
      }),
  })
  .openapi('BatchDecision');

const OutcomeSchema = z
  .object({
    workflowId: z.string(),
    approvalId: z.string(),
    callHash: z.string().optional(),
    ok: z.boolean(),
    record: ApprovalRecordSchema.optional(),
    error: z.string().optional(),
    reason: z.string().optional(),
  })
  .openapi('BatchOutcome');

const batchRoute = createRoute({
  operationId: 'decideApprovalBatch',
  method: 'post',
  path: '/v1/approvals/batch',
  tags: ['approvals'],
  summary: 'Approve or reject several similar waiting calls together: each its own decision, bound to its own call',
  ...secured(
    Permission.DECIDE,
    "Each decision is recorded under the caller's identity, which must be among each policy's approvers, and signed on its own by the service when it has a key. Calls that are not alike refuse the whole batch (409); an approval that no longer waits, or refuses the decision, is reported in its outcome.",
  ),
  request: { body: { ...jsonBody(BatchSchema, 'The batch'), required: true } },
  responses: {
    200: jsonBody(z.object({ outcomes: z.array(OutcomeSchema) }), 'An outcome per approval, in the order given'),
    ...problems(400, 401, 403, 409, 413, 503),
  },
});

/** Register `GET /v1/inbox` and `POST /v1/approvals/batch`. */
export function inboxRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(inboxRoute, async (c) => {
    const identity = c.get('identity');
    const q = c.req.valid('query');
    const options: InboxOptions = {
      ...(q.for === 'all' ? {} : { for: [identity.name, ...(identity.groups ?? [])] }),
      // Whoever it is for, the caller's own tenant's chains only.
      tenant: identity.tenant ?? null,
      ...(q.team ? { team: q.team } : {}),
      ...(q.agent ? { agent: q.agent } : {}),
      ...(q.tool ? { tool: q.tool } : {}),
      ...(q.minAge ? { minAgeMs: ageMs(q.minAge) } : {}),
      ...(q.overdue === 'true' ? { overdue: true } : {}),
      ...(q.q ? { search: q.q } : {}),
      ...(q.limit ? { limit: Number(q.limit) } : {}),
      ...(q.pageToken ? { pageToken: q.pageToken } : {}),
      reveal: true,
    };
    try {
      const page = await ctx.baton.inbox(options);
      const approvals = page.approvals.map((a) => {
        const canDecide = mayDecide(identity, a.approvers);
        return { ...(canDecide ? a : { ...a, ...redactPending(a) }), canDecide };
      });
      return c.json({ ...page, approvals } as never, 200);
    } catch (err) {
      if (err instanceof InboxOptionError) throw new HttpProblem(400, 'Invalid inbox query', err.message);
      throw err;
    }
  });

  app.openapi(batchRoute, async (c) => {
    const identity = c.get('identity');
    const { decision, comment, approvals } = c.req.valid('json');
    await ctx.payloadLimit.check('The batch', { approver: identity.name, comment, approvals });
    const seen = new Map<string, PendingApproval>();
    const own = new Map(
      approvals.flatMap((a) => (a.signature ? [[`${a.workflowId}/${a.approvalId}`, a.signature] as const] : [])),
    );
    const outcomes = await ctx.baton
      .decideBatch({
        approvals: approvals.map(({ signature: _s, ...item }) => item),
        decision,
        approver: identity.name,
        ...(comment ? (decision === 'approve' ? { comment } : { reason: comment }) : {}),
        // The decision each approval gets is checked against its own policy before it is sent.
        sign: async (workflowId, waiting) => {
          if (!isCallersTenant(identity, await tenantOf(ctx, workflowId)))
            throw new UserError(`no chain ${workflowId}`);
          seen.set(`${workflowId}/${waiting.handoffId}`, waiting);
          if (!mayDecide(identity, waiting.approvers))
            throw new UserError(
              `${identity.name} may not decide this ${waiting.tool ? 'tool call' : 'handoff'} (approvers: ${waiting.approvers?.join(', ')})`,
            );
          // A signature the approver made is sent as it is: the chain checks it against its team's keys.
          const signature = own.get(`${workflowId}/${waiting.handoffId}`);
          if (signature) return signature;
          const fields = {
            approver: identity.name,
            decision,
            ...(comment ? (decision === 'approve' ? { comment } : { reason: comment }) : {}),
          };
          return ctx.signer
            ? signDecision(ctx.signer, { workflowId, waiting, decision: fields, token: c.get('token') })
            : undefined;
        },
      })
      .catch((err: unknown) => {
        throw err instanceof UserError ? new HttpProblem(409, 'Batch refused', err.message) : err;
      });
    for (const o of outcomes) {
      if (!o.ok) continue;
      ctx.metrics?.decisions.inc({ decision });
      const waiting = seen.get(`${o.workflowId}/${o.approvalId}`);
      if (waiting) countDecision(ctx.baton, ctx.metrics, o.workflowId, waiting, o.record);
    }
    return c.json({ outcomes } as never, 200);
  });
}

function ageMs(text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) : durationMs(text);
  if (ms === undefined || ms < 0)
    throw new HttpProblem(
      400,
      'Invalid inbox query',
      `minAge must be a duration such as "10 minutes" or "2h", or milliseconds, got "${text}"`,
    );
  return ms;
}
