/**
 * Events that start chains: `POST /events` takes a CloudEvent (HTTP binding, structured or binary
 * mode) signed with the webhook's shared secret, and starts the chain its type's rule names —
 * once per event: the chain's id is derived from the event's `source` and `id`, and Temporal
 * refuses a second start under it, so a sender's retries find the chain the first delivery started.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ServiceApp, ServiceContext } from '../context';
import { bodySizeLimit } from '../limits';
import { HttpProblem } from '../problems';
import { startAs } from '../runs';

/** Which chain an event type starts. */
export interface CloudEventRule {
  /** The CloudEvent `type`, e.g. `com.example.order.damaged`. */
  type: string;
  /** The agent the chain starts with. */
  agent: string;
}

/** The webhook receiver (`BatonServiceOptions.cloudEvents`). */
export interface CloudEventOptions {
  /**
   * The shared secret senders sign with: `X-Baton-Signature: sha256=<hex HMAC-SHA256 of the body>`.
   * At least 16 characters.
   */
  secret: string;
  rules: CloudEventRule[];
}

/** A CloudEvent's attributes baton reads. */
interface CloudEvent {
  id: string;
  source: string;
  type: string;
  data?: unknown;
}

/** Serve `POST /events`. */
export function cloudEventRoutes(app: ServiceApp, ctx: ServiceContext, options: CloudEventOptions, maxBodyBytes: number): void {
  if (typeof options.secret !== 'string' || options.secret.length < 16) throw new Error('cloudEvents.secret must be a shared secret of at least 16 characters');
  const rules = new Map(options.rules.map((r) => [r.type, r]));
  app.post('/events', bodySizeLimit(maxBodyBytes), async (c) => {
    const body = await c.req.text();
    verify(options.secret, body, c.req.header('x-baton-signature'));
    const event = eventOf(body, (name) => c.req.header(name));
    const rule = rules.get(event.type);
    if (!rule) throw new HttpProblem(422, 'No rule for this event', `no rule starts a chain for events of type "${event.type}" (rules: ${[...rules.keys()].join(', ') || 'none'})`);
    const workflowId = `baton-event-${createHash('sha256').update(`${event.source}\n${event.id}`).digest('hex').slice(0, 32)}`;
    const input = typeof event.data === 'string' ? event.data : JSON.stringify(event.data ?? { type: event.type, source: event.source });
    try {
      await startAs(ctx, { name: `event:${event.source}`.slice(0, 200), roles: ['starter'] }, { agent: rule.agent, input }, workflowId);
      return c.json({ workflowId, created: true }, 202);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return c.json({ workflowId, created: false }, 200);
      throw err;
    }
  });
}

function verify(secret: string, body: string, header: string | undefined): void {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '')?.[1];
  if (!given) throw new HttpProblem(401, 'Unauthorized', 'the event must be signed: X-Baton-Signature: sha256=<hex HMAC-SHA256 of the body with the shared secret>');
  const expected = createHmac('sha256', secret).update(body).digest();
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) throw new HttpProblem(401, 'Unauthorized', 'the signature does not match the body');
}

/** The event of a request: structured mode (`application/cloudevents+json`) or binary mode (`ce-*` headers, the body its data). */
function eventOf(body: string, header: (name: string) => string | undefined): CloudEvent {
  const structured = (header('content-type') ?? '').startsWith('application/cloudevents+json');
  let raw: Record<string, unknown>;
  if (structured) {
    const parsed = parseJson(body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid([{ path: '', message: 'a structured CloudEvent is a JSON object' }]);
    raw = parsed as Record<string, unknown>;
  } else {
    raw = { specversion: header('ce-specversion'), id: header('ce-id'), source: header('ce-source'), type: header('ce-type'), data: (header('content-type') ?? '').includes('json') ? parseJson(body) : body };
  }
  const errors = ['id', 'source', 'type'].filter((k) => typeof raw[k] !== 'string' || raw[k] === '' || (raw[k] as string).length > 1000).map((k) => ({ path: k, message: `"${k}" must be a non-empty string of at most 1000 characters${structured ? '' : ` (header ce-${k})`}` }));
  if (raw.specversion !== '1.0') errors.push({ path: 'specversion', message: `"specversion" must be "1.0"${structured ? '' : ' (header ce-specversion)'}` });
  if (errors.length > 0) throw invalid(errors);
  return { id: raw.id as string, source: raw.source as string, type: raw.type as string, ...(raw.data !== undefined ? { data: raw.data } : {}) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid([{ path: '', message: 'the body is not JSON' }]);
  }
}

function invalid(errors: { path: string; message: string }[]): HttpProblem {
  return new HttpProblem(400, 'Invalid CloudEvent', 'The request is not a CloudEvent baton can read (CloudEvents 1.0, HTTP binding).', errors);
}
