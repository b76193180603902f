/**
 * Approvals: every handoff and tool call waiting for a decision across chains (as a list and as a
 * live stream), and deciding one under the caller's own identity (a tool call maybe with edited arguments).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { signDecision } from '../client/signing/sign';
import { secured } from './access';
import { mayDecide, Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { jsonBody, problems } from './openapi';
import { countDecision } from './metrics';
import { HttpProblem } from './problems';
import { followWithContext, withChains } from './approvalContext';
import { ApprovalRecordSchema, DecisionSchema, PendingApprovalSchema } from './approvalSchemas';

const listRoute = createRoute({
  operationId: 'listApprovals',
  method: 'get',
  path: '/v1/approvals',
  tags: ['approvals'],
  summary: 'Every handoff and tool call waiting for approval, across chains, oldest first',
  ...secured(Permission.READ),
  responses: {
    200: jsonBody(z.object({ approvals: z.array(PendingApprovalSchema) }), 'Waiting approvals'),
    ...problems(401, 403, 503),
  },
});

const streamRoute = createRoute({
  operationId: 'streamApprovals',
  method: 'get',
  path: '/v1/approvals/events',
  tags: ['approvals'],
  summary: 'The waiting approvals as Server-Sent Events: an `approvals` event with the whole list whenever it changes',
  ...secured(Permission.READ),
  responses: {
    200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...problems(401, 403),
  },
});

const decideRoute = createRoute({
  operationId: 'decideApproval',
  method: 'post',
  path: '/v1/runs/{id}/approvals/{approvalId}',
  tags: ['approvals'],
  summary: "Approve or reject a waiting handoff or tool call as the token's identity",
  ...secured(
    Permission.DECIDE,
    "The decision is recorded under the caller's identity, which must be among the policy's approvers (when it names any). " +
      'A tool call may be approved with edited `arguments`; send its `callHash` so a decision meant for a call that changed since is refused (409).',
  ),
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(1000)
        .openapi({ param: { name: 'id', in: 'path' } }),
      approvalId: z
        .string()
        .min(1)
        .max(1000)
        .openapi({ param: { name: 'approvalId', in: 'path' } }),
    }),
    body: { ...jsonBody(DecisionSchema, 'The decision'), required: true },
  },
  responses: {
    200: jsonBody(ApprovalRecordSchema, 'How the approval ended'),
    ...problems(400, 401, 403, 404, 409, 413, 503),
  },
});

/** Register the approval routes. */
export function approvalRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(listRoute, async (c) => {
    const identity = c.get('identity');
    // Read with every sensitive argument shown, then redacted for each caller who may not decide the call.
    const pending = await ctx.baton.pending({ reveal: true, tenant: identity.tenant ?? null });
    return c.json({ approvals: await withChains(ctx, pending, identity) }, 200);
  });

  app.openapi(streamRoute, async (c) => {
    const identity = c.get('identity');
    return streamSSE(c, async (stream) => {
      let sent = 0;
      const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
      const unsubscribe = followWithContext(
        ctx,
        identity,
        async (approvals) => {
          sent += 1;
          await stream.writeSSE({ id: String(sent), event: 'approvals', data: JSON.stringify({ approvals }) });
        },
        () => stream.aborted,
      );
      const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(() => undefined), 15_000);
      await closed;
      clearInterval(keepalive);
      unsubscribe();
    }) as never;
  });

  app.openapi(decideRoute, async (c) => {
    const identity = c.get('identity');
    const { id, approvalId } = c.req.valid('param');
    const {
      decision,
      comment,
      reason,
      arguments: edited,
      callHash,
      signature,
      onBehalfOf,
      delegation,
    } = c.req.valid('json');
    await ctx.payloadLimit.check('The decision', {
      handoffId: approvalId,
      approver: identity.name,
      comment,
      reason,
      arguments: edited,
      callHash,
      signature,
      onBehalfOf,
      delegation,
    });
    const slot = slotDecision(identity.name, onBehalfOf, delegation);
    if (reason !== undefined && decision !== 'reject')
      throw new HttpProblem(400, 'Invalid decision', 'The decision does not fit what waits.', [
        { path: 'reason', message: '"reason" goes with "reject" only (an approval takes a "comment")' },
      ]);
    if (reason !== undefined && comment !== undefined)
      throw new HttpProblem(400, 'Invalid decision', 'A rejection carries one note, its reason.', [
        {
          path: 'comment',
          message:
            'a rejection with a "reason" takes no "comment": send the reason alone (a code of the team\'s, or free text where it defines none), or the comment alone as its reason',
        },
      ]);
    // The chain's own waiting handoffs and those of its specialists (delegation), as its workers see them.
    const waiting = (await ctx.baton.getRun(id).pendingApprovals()).find((p) => p.handoffId === approvalId);
    if (!waiting) throw new HttpProblem(404, 'Not found', `no approval ${approvalId} is waiting in chain ${id}`);
    // A delegate decides for the slot's owner; the chain checks the grant that says so.
    if (!mayDecide({ ...identity, name: slot.onBehalfOf ?? identity.name }, waiting.approvers)) {
      throw new HttpProblem(
        403,
        'Forbidden',
        `${slot.onBehalfOf ? `${identity.name} for ${slot.onBehalfOf}` : identity.name} may not decide this ${waiting.tool ? 'tool call' : 'handoff'} (approvers: ${waiting.approvers?.join(', ')})`,
      );
    }
    const toolFields = toolDecision(waiting.tool !== undefined, decision, edited, callHash);
    const note = decision === 'reject' ? (reason ?? comment) : comment;
    const fields = {
      approver: identity.name,
      ...(note ? (decision === 'approve' ? { comment: note } : { reason: note }) : {}),
      ...toolFields,
      ...slot,
    };
    // The caller's own signature goes as it is; else the service signs for the identity its token proved.
    const signed =
      signature ??
      (ctx.signer
        ? await signDecision(ctx.signer, {
            workflowId: waiting.workflowId ?? id,
            waiting,
            decision: { ...fields, decision },
            token: c.get('token'),
          })
        : undefined);
    const options = { ...fields, ...(signed !== undefined ? { signature: signed } : {}) };
    const record =
      decision === 'approve'
        ? await ctx.baton.approve(id, approvalId, options)
        : await ctx.baton.reject(id, approvalId, options);
    ctx.metrics?.decisions.inc({ decision });
    countDecision(ctx.baton, ctx.metrics, waiting.workflowId ?? id, waiting, record);
    return c.json(record as unknown as z.infer<typeof ApprovalRecordSchema>, 200);
  });
}

/** A decision's `onBehalfOf` and its `delegation`, or 400 when one comes without the other or names the caller. */
function slotDecision(
  caller: string,
  onBehalfOf: string | undefined,
  delegation: string | undefined,
): { onBehalfOf?: string; delegation?: string } {
  const errors = [
    ...(onBehalfOf !== undefined && delegation === undefined
      ? [
          {
            path: 'delegation',
            message: `deciding for ${onBehalfOf} needs "delegation": the grant, signed by ${onBehalfOf} or an operator, giving ${caller} that slot`,
          },
        ]
      : []),
    ...(delegation !== undefined && onBehalfOf === undefined
      ? [
          {
            path: 'onBehalfOf',
            message: '"delegation" goes with "onBehalfOf", the approver whose slot the grant gives',
          },
        ]
      : []),
    ...(onBehalfOf !== undefined && onBehalfOf === caller
      ? [
          {
            path: 'onBehalfOf',
            message: `"onBehalfOf" names the caller, ${caller}, themself: leave it out to decide for your own slot`,
          },
        ]
      : []),
  ];
  if (errors.length > 0)
    throw new HttpProblem(400, 'Invalid decision', 'The decision does not fit what waits.', errors);
  return onBehalfOf !== undefined && delegation !== undefined ? { onBehalfOf, delegation } : {};
}

/** A decision's `arguments` and `callHash`, or 400 when they cannot go with it. */
function toolDecision(
  isTool: boolean,
  decision: 'approve' | 'reject',
  edited: Record<string, unknown> | undefined,
  callHash: string | undefined,
) {
  const errors = [
    ...(!isTool && edited !== undefined
      ? [{ path: 'arguments', message: '"arguments" apply to tool calls only; this approval is for a handoff' }]
      : []),
    ...(!isTool && callHash !== undefined
      ? [{ path: 'callHash', message: '"callHash" applies to tool calls only; this approval is for a handoff' }]
      : []),
    ...(isTool && edited !== undefined && decision !== 'approve'
      ? [{ path: 'arguments', message: '"arguments" go with "approve" only' }]
      : []),
  ];
  if (errors.length > 0)
    throw new HttpProblem(400, 'Invalid decision', 'The decision does not fit what waits.', errors);
  return { ...(edited !== undefined ? { arguments: edited } : {}), ...(callHash !== undefined ? { callHash } : {}) };
}
