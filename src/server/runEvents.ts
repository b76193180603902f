/**
 * `GET /v1/runs/{id}/events`: a chain's events as Server-Sent Events, resumed after the event a
 * `Last-Event-ID` names. A `Last-Event-ID` that this chain's streams could not have sent is refused
 * with 400 before the stream opens; a failure while streaming ends the stream with an `error` event
 * holding problem details.
 */
import { displayText } from '../common/display';
import { createRoute, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { secured } from './access';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { mustBeChain } from './kinds';
import { parseEventId, streamRunEvents, type EventPosition } from './events';
import { problems } from './openapi';
import { HttpProblem, problemBody, toProblem } from './problems';
import { RunIdParam } from './schemas';

const eventsRoute = createRoute({
  operationId: 'getRunEvents',
  method: 'get',
  path: '/v1/runs/{id}/events',
  tags: ['runs'],
  summary: "The chain's events as Server-Sent Events",
  ...secured(
    Permission.READ,
    'Model and tool calls, handoffs, approvals asked and decided, and the end (`completed`, `failed` or `ended`), from the start of the chain. ' +
      'Each event has an id `<runId>:<n>`; reconnect with `Last-Event-ID` to get only what came after it. A `Last-Event-ID` that is not such an id, ' +
      "or names a run that is not one of this chain's, is refused with 400 (leave it out to start from the beginning). " +
      'A failure while streaming ends the stream with an `error` event whose data is problem details.',
  ),
  request: { params: RunIdParam, headers: z.object({ 'last-event-id': z.string().optional() }) },
  responses: {
    200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...problems(400, 401, 403, 404, 503),
  },
});

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Register the route of a chain's event stream. */
export function runEventRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(eventsRoute, async (c) => {
    const id = c.req.valid('param').id;
    const after = await resumePoint(ctx, id, c.req.valid('header')['last-event-id']);
    return streamSSE(c, async (stream) => {
      try {
        await streamRunEvents(stream, ctx.baton.client, id, after);
      } catch (err) {
        const problem = toProblem(err);
        if (problem.status >= 500) ctx.log(`events of ${displayText(id)} stopped`, err);
        await stream.writeSSE({ event: 'error', data: JSON.stringify(problemBody(problem)) }).catch(() => undefined);
      }
    }) as never;
  });
}

/** Where a stream of chain `id` resumes: after the event `lastEventId` names, or from the start without one; 404 for no chain, 400 for an id it never sent. */
async function resumePoint(
  ctx: ServiceContext,
  id: string,
  lastEventId: string | undefined,
): Promise<EventPosition | undefined> {
  await mustBeChain(ctx, id);
  if (lastEventId === undefined || lastEventId.trim() === '') return undefined;
  const after = parseEventId(lastEventId);
  const refuse = (why: string) =>
    new HttpProblem(
      400,
      'Invalid Last-Event-ID',
      `${why}; leave Last-Event-ID out to start from the beginning of the chain.`,
      [{ path: 'last-event-id', message: why }],
    );
  if (!after || !RUN_ID.test(after.runId))
    throw refuse('Last-Event-ID must be an event id this stream sent, <runId>:<n>');
  try {
    await ctx.baton.client.workflow.getHandle(id, after.runId).describe();
  } catch (err) {
    if (toProblem(err).status === 404)
      throw refuse(`Last-Event-ID names run ${after.runId}, which is not a run of chain ${id}`);
    throw err;
  }
  return after;
}
