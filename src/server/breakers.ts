/**
 * The circuit breakers chains share: listed for anyone who reads, reset by an operator under the
 * caller's own identity (recorded in the breaker).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { secured } from './access';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { jsonBody, problems } from './openapi';
import { SharedBreakerSchema } from './schemas';

const listRoute = createRoute({
  operationId: 'listBreakers',
  method: 'get',
  path: '/v1/breakers',
  tags: ['economics'],
  summary:
    'The circuit breakers shared across chains (teams with `sharedBreakers`): state, failures, last failure and resets',
  ...secured(Permission.READ),
  responses: {
    200: jsonBody(z.object({ breakers: z.array(SharedBreakerSchema) }), 'Shared breakers running'),
    ...problems(401, 403, 503),
  },
});

const ResetSchema = z
  .object({
    scope: z.string().min(1).max(1000).openapi({ description: 'As the list shows it, e.g. queue:baton' }),
    target: z.string().min(1).max(1000).openapi({ description: 'The agent the breaker guards' }),
    reason: z.string().max(1000).optional().openapi({ description: 'Why, recorded with the reset' }),
  })
  .strict()
  .openapi('BreakerReset');

const resetRoute = createRoute({
  operationId: 'resetBreaker',
  method: 'post',
  path: '/v1/breakers/reset',
  tags: ['economics'],
  summary: "Close a shared circuit breaker at once, recorded with the token's identity as who reset it",
  ...secured(Permission.OPERATE),
  request: { body: { ...jsonBody(ResetSchema, 'Which breaker, and why'), required: true } },
  responses: {
    200: jsonBody(SharedBreakerSchema, 'The breaker after the reset'),
    ...problems(400, 401, 403, 409, 503),
  },
});

/** Register the breaker routes. */
export function breakerRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(listRoute, async (c) => c.json({ breakers: await ctx.baton.economics.breakers() }, 200));
  app.openapi(resetRoute, async (c) => {
    const { scope, target, reason } = c.req.valid('json');
    const by = c.get('identity').name;
    return c.json(await ctx.baton.economics.resetBreaker(scope, target, { by, ...(reason ? { reason } : {}) }), 200);
  });
}
