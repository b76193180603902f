/**
 * The team as an A2A agent on the service: its Agent Card at `/.well-known/agent-card.json` and the
 * A2A JSON-RPC binding at `POST /a2a` (`@a2a-js/sdk`'s JSON-RPC transport over {@link BatonA2AHandler}).
 * Every call needs one of the service's bearer tokens; a caller it refuses gets the REST API's
 * answer (401, 403, 413, 429 with problem details), everything else a JSON-RPC answer.
 */
import { AgentCard, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type User } from '@a2a-js/sdk/server';
import type { Authenticator, TokenChecked } from '../auth';
import type { ServiceApp, ServiceContext } from '../context';
import { bodySizeLimit } from '../limits';
import { a2aTeam, agentCard, type A2AOptions } from './card';
import { CALLER, REFUSAL } from './callContext';
import { BatonA2AHandler } from './handler';

export type { A2AOptions } from './card';

type RpcAnswer = Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
type RpcStream = Extract<RpcAnswer, AsyncGenerator>;

/** Serve the team over A2A on `app`. */
export function a2aRoutes(
  app: ServiceApp,
  ctx: ServiceContext,
  authenticator: Authenticator,
  options: A2AOptions | undefined,
  maxBodyBytes: number,
): void {
  const team = a2aTeam(options, ctx.agents);
  let base = options?.url ?? 'http://127.0.0.1';
  const handler = new BatonA2AHandler(ctx, team, () => agentCard(options, team, base));
  const transport = new JsonRpcTransportHandler(handler);

  app.get('/.well-known/agent-card.json', (c) => {
    if (!options?.url) base = new URL(c.req.url).origin;
    return c.json(
      AgentCard.toJSON(agentCard(options, team, options?.url ?? new URL(c.req.url).origin)) as Record<string, never>,
      200,
      { 'cache-control': 'no-cache' },
    );
  });

  app.post('/a2a', bodySizeLimit(maxBodyBytes), async (c) => {
    const caller = await authenticator.check(c.req.header('authorization'));
    if (!options?.url) base = new URL(c.req.url).origin;
    const requestedVersion = c.req.header(A2A_VERSION_HEADER) || undefined;
    const context = new ServerCallContext({
      user: userOf(caller),
      ...(requestedVersion ? { requestedVersion } : {}),
      state: new Map<string, unknown>([[CALLER, caller]]),
    });
    const body = await c.req.text();
    let answer: RpcAnswer;
    try {
      validateVersion(context.requestedVersion, agentCard(options, team, base), 'JSONRPC');
      answer = await transport.handle(body, context);
    } catch (err) {
      return c.json({ jsonrpc: '2.0', id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(err) }, 200);
    }
    if (!isStream(answer)) {
      refused(context);
      return c.json(answer, 200);
    }
    let first: IteratorResult<unknown>;
    try {
      first = await answer.next();
    } catch (err) {
      refused(context);
      return c.json({ jsonrpc: '2.0', id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(err) }, 200);
    }
    return new Response(sseOf(answer, first, idOf(body), ctx), { status: 200, headers: SSE_HEADERS });
  });
}

/** The events as Server-Sent Events, the first already read; a failure ends them with an `error` event. */
function sseOf(
  stream: RpcStream,
  first: IteratorResult<unknown>,
  id: unknown,
  ctx: ServiceContext,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        if (!first.done) controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
        for (let next = await stream.next(); !next.done; next = await stream.next())
          controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (err) {
        ctx.log('an A2A stream stopped', err);
        controller.enqueue(
          encoder.encode(
            formatSSEErrorEvent({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) }),
          ),
        );
      }
      controller.close();
    },
    async cancel() {
      // The client left: stop following the chain.
      await stream.return(undefined);
    },
  });
}

/** Throw the refusal the handler left (403, 413, 429), for the service to answer with its status. */
function refused(context: ServerCallContext): void {
  const refusal = context.state.get(REFUSAL);
  if (refusal) throw refusal;
}

function isStream(answer: RpcAnswer): answer is RpcStream {
  return typeof (answer as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function idOf(body: string): string | number | null {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

function userOf(caller: TokenChecked): User {
  return { isAuthenticated: true, userName: caller.identity.name };
}
