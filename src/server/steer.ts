/**
 * `POST /v1/runs/{id}/steer`: a user message for a running chain (or a conversation's running
 * turn), applied at its next step and recorded under the caller's identity; with `interrupt`, the
 * answer the model is writing stops at once.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { secured } from './access';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { jsonBody, problems } from './openapi';

const SteerSchema = z
  .object({
    text: z
      .string()
      .min(1)
      .openapi({ description: 'The message, as the model will read it (a user message); at most 256 KB' }),
    interrupt: z.boolean().optional().openapi({
      description:
        'Stop the answer the model is writing now and ask again with the message (default: apply it once the answer is written)',
    }),
  })
  .strict()
  .openapi('Steer');

const ReceiptSchema = z
  .object({ steerId: z.string(), interrupted: z.boolean(), waiting: z.number().int() })
  .openapi('SteerReceipt');

const steerRoute = createRoute({
  operationId: 'steerRun',
  method: 'post',
  path: '/v1/runs/{id}/steer',
  tags: ['runs'],
  summary: "Add a message to a running chain or conversation turn, as the token's identity",
  ...secured(
    Permission.START,
    "The message joins the current agent's conversation at the chain's next step, recorded with the caller's identity. " +
      'A chain that has ended, one that started before chains took steering messages, a conversation with no message being answered, or 20 messages already waiting: 409. A message over 256 KB: 413.',
  ),
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(1000)
        .openapi({ param: { name: 'id', in: 'path' }, description: 'The chain or conversation id (its workflow id)' }),
    }),
    body: { ...jsonBody(SteerSchema, 'The message'), required: true },
  },
  responses: { 200: jsonBody(ReceiptSchema, 'The message was taken'), ...problems(400, 401, 403, 404, 409, 413, 503) },
});

/** Register the steering route. */
export function steerRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(steerRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { text, interrupt } = c.req.valid('json');
    const by = c.get('identity').name;
    await ctx.payloadLimit.check('The message', { text, by });
    const receipt = interrupt ? await ctx.baton.interrupt(id, text, { by }) : await ctx.baton.steer(id, text, { by });
    return c.json(receipt, 200);
  });
}
