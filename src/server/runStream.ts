/**
 * `GET /v1/runs/{id}/stream`: a chain's events and the text of its model calls as it forms, as
 * Server-Sent Events. Each has an id `<runId>:<n>~<cursor>` (the last event, the transport's
 * position); a client that reconnects with `Last-Event-ID` gets the events it missed and the text
 * published after the text it had.
 */
import { displayText } from '../common/display';
import { createRoute, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { parsePosition, streamRun } from '../client/follow';
import { secured } from './access';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { eventJson } from './events';
import { mustBeChain } from './kinds';
import { problems } from './openapi';
import { HttpProblem, problemBody, toProblem } from './problems';
import { RunIdParam } from './schemas';

const KEEPALIVE_MS = 15_000;

const streamRoute = createRoute({
  operationId: 'streamRun',
  method: 'get',
  path: '/v1/runs/{id}/stream',
  tags: ['runs'],
  summary: "The chain's events and its model calls' text as it forms, as Server-Sent Events",
  ...secured(
    Permission.READ,
    "The events of `/v1/runs/{id}/events` and, between them, `text` events (`{workflowId, agent, call, offset, text, …}`: text that goes at `offset` of the call's text) " +
      'and `text_reset` events (drop the text of that call: a retried call, or text that differs from the answer history records, which follows in full). ' +
      'A `text_unavailable` event (`{error}`), sent once, says the text transport failed: answers then come whole as each call ends. ' +
      "Applying them in order ends with each call's recorded answer. Each event has an id `<runId>:<n>~<cursor>`; reconnect with `Last-Event-ID` to get only what came after it. " +
      'A `Last-Event-ID` that is not such an id is refused with 400. A failure while streaming ends the stream with an `error` event whose data is problem details.',
  ),
  request: { params: RunIdParam, headers: z.object({ 'last-event-id': z.string().optional() }) },
  responses: {
    200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...problems(400, 401, 403, 404, 503),
  },
});

/** Register the route of a chain's live stream. */
export function runStreamRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(streamRoute, async (c) => {
    const id = c.req.valid('param').id;
    await mustBeChain(ctx, id);
    const raw = c.req.valid('header')['last-event-id'];
    const after = raw === undefined || raw.trim() === '' ? undefined : raw.trim();
    if (after !== undefined && !parsePosition(after)) {
      const why = 'Last-Event-ID must be an event id this stream sent, <runId>:<n>~<cursor>';
      throw new HttpProblem(
        400,
        'Invalid Last-Event-ID',
        `${why}; leave Last-Event-ID out to start from the beginning of the chain.`,
        [{ path: 'last-event-id', message: why }],
      );
    }
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(() => undefined), KEEPALIVE_MS);
      try {
        for await (const item of streamRun(ctx.baton.client.workflow, ctx.baton.streams, id, undefined, {
          ...(after ? { after } : {}),
          signal: abort.signal,
        })) {
          if (stream.aborted) break;
          const { position, ...body } = item;
          await stream.writeSSE({
            id: position,
            event: body.kind,
            data: JSON.stringify(
              body.kind === 'text' || body.kind === 'text_reset' || body.kind === 'text_unavailable'
                ? body
                : eventJson(body),
            ),
          });
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        const problem = toProblem(err);
        if (problem.status >= 500) ctx.log(`stream of ${displayText(id)} stopped`, err);
        await stream.writeSSE({ event: 'error', data: JSON.stringify(problemBody(problem)) }).catch(() => undefined);
      } finally {
        clearInterval(keepalive);
      }
    }) as never;
  });
}
