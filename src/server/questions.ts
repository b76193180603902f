/**
 * Request-info over HTTP: an approver asks a question about a waiting approval instead of deciding
 * it (`POST …/questions`, the decide permission and the policy's approvers), and the requester
 * answers it (`POST …/answer`, the start permission); both under the token's identity, judged again
 * by the workflow's own validator.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { secured } from './access';
import { mayDecide, Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { jsonBody, problems } from './openapi';
import { HttpProblem } from './problems';
import { AnswerSchema, ApprovalQuestionSchema, AskSchema } from './approvalSchemas';

const params = z.object({
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
});

const askRoute = createRoute({
  operationId: 'askAboutApproval',
  method: 'post',
  path: '/v1/runs/{id}/approvals/{approvalId}/questions',
  tags: ['approvals'],
  summary: "Ask a question about a waiting approval instead of deciding it, as the token's identity",
  ...secured(
    Permission.DECIDE,
    "The asker must be among the policy's approvers (when it names any). The approval keeps waiting, now for the answer too; one question is open at a time (409 while one is).",
  ),
  request: { params, body: { ...jsonBody(AskSchema, 'The question'), required: true } },
  responses: {
    200: jsonBody(ApprovalQuestionSchema, 'The question as recorded'),
    ...problems(400, 401, 403, 404, 409, 413, 503),
  },
});

const answerRoute = createRoute({
  operationId: 'answerApprovalQuestion',
  method: 'post',
  path: '/v1/runs/{id}/approvals/{approvalId}/answer',
  tags: ['approvals'],
  summary: "Answer the open question about a waiting approval, as the token's identity (the requester)",
  ...secured(
    Permission.START,
    'Whoever may start chains answers for the requester. The approval keeps waiting for a decision, the answer attached (409 when no question is open).',
  ),
  request: { params, body: { ...jsonBody(AnswerSchema, 'The answer'), required: true } },
  responses: {
    200: jsonBody(ApprovalQuestionSchema, 'The question with its answer'),
    ...problems(400, 401, 403, 404, 409, 413, 503),
  },
});

/** Register the request-info routes. */
export function questionRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(askRoute, async (c) => {
    const identity = c.get('identity');
    const { id, approvalId } = c.req.valid('param');
    const { question } = c.req.valid('json');
    const waiting = (await ctx.baton.getRun(id).pendingApprovals()).find((p) => p.handoffId === approvalId);
    if (!waiting) throw new HttpProblem(404, 'Not found', `no approval ${approvalId} is waiting in chain ${id}`);
    if (!mayDecide(identity, waiting.approvers))
      throw new HttpProblem(
        403,
        'Forbidden',
        `${identity.name} may not ask about this approval: only its approvers may (approvers: ${waiting.approvers?.join(', ')})`,
      );
    const asked = await ctx.baton.ask(id, { approvalId, approver: identity.name, question });
    return c.json(asked, 200);
  });

  app.openapi(answerRoute, async (c) => {
    const identity = c.get('identity');
    const { id, approvalId } = c.req.valid('param');
    const { answer } = c.req.valid('json');
    const answered = await ctx.baton.answer(id, { approvalId, answerer: identity.name, answer });
    return c.json(answered, 200);
  });
}
