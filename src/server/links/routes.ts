/**
 * `/v1/links/{token}`: the signed one-time approve and reject links of approval emails. `GET` shows
 * what the link would decide and asks to confirm (mail scanners that fetch links decide nothing);
 * `POST` verifies the link's signature and expiry and applies exactly its decision to exactly its
 * approval (and tool call) as the identity it was issued for, through the same update and checks
 * as `POST /v1/runs/{id}/approvals/{approvalId}`. The decision records the link's id; the approval
 * takes one decision, so a link used once is refused ever after, by the chain itself.
 */
import type { Context } from 'hono';
import { type DecisionLink, LinkRefusedError, verifyLink } from '../../../activities/notify';
import type { ServiceApp, ServiceContext, ServiceEnv } from '../context';
import { decideAs } from '../decisions';
import { HttpProblem } from '../problems';

/** Register the link routes (before the bearer-token check: the link's signature is the credential). */
export function linkRoutes(app: ServiceApp, ctx: ServiceContext, secret: string): void {
  app.get('/v1/links/:token', (c) => {
    const link = verified(secret, c.req.param('token'));
    const what = `${link.decision === 'approve' ? 'Approve' : 'Reject'} approval ${link.approvalId} of chain ${link.workflowId} as ${link.identity}`;
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(what)}</title></head>` +
        `<body><main><h1>${escape(what)}?</h1><form method="post"><button type="submit">${link.decision === 'approve' ? 'Approve' : 'Reject'}</button></form></main></body></html>`,
      200,
      { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    );
  });

  app.post('/v1/links/:token', async (c) => {
    const link = verified(secret, c.req.param('token'));
    try {
      const record = await decideAs(
        ctx,
        { identity: { name: link.identity, roles: ['approver'] }, token: { iss: 'baton:link', sub: link.id } },
        link.workflowId,
        {
          decision: link.decision,
          approvalId: link.approvalId,
          ...(link.callHash ? { callHash: link.callHash } : {}),
          comment: `${link.decision === 'approve' ? 'approved' : 'rejected'} by email link ${link.id}`,
        },
      );
      return respond(
        c,
        200,
        { link: link.id, ...record },
        `${record.outcome === 'approved' ? 'Approved' : 'Rejected'} as ${link.identity}.`,
      );
    } catch (err) {
      // Nothing waits for this approval any more: decided (by this link or another) or ended.
      if (err instanceof HttpProblem && err.status === 404)
        throw new HttpProblem(
          410,
          'Link used',
          `this link can no longer decide: approval ${link.approvalId} was already decided or its chain moved on`,
        );
      throw err;
    }
  });
}

function verified(secret: string, token: string): DecisionLink {
  try {
    return verifyLink(secret, token);
  } catch (err) {
    if (err instanceof LinkRefusedError)
      throw new HttpProblem(err.problem === 'expired' ? 410 : 403, 'Link refused', err.message);
    throw err;
  }
}

function respond(c: Context<ServiceEnv>, status: 200, json: Record<string, unknown>, text: string) {
  if ((c.req.header('accept') ?? '').includes('text/html'))
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(text)}</title></head><body><p>${escape(text)}</p></body></html>`,
      status,
    );
  return c.json(json, status);
}

function escape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}
