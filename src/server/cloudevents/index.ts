/**
 * Events that start chains or steer conversations: `POST /events` takes a CloudEvent (HTTP binding,
 * structured or binary mode) signed with the webhook's shared secret, and does what the rule for its
 * type says — the service's rules and those of the team it serves — once per event: a chain's id,
 * and a conversation message's idempotency key, are derived from the event's `source` and `id`, so
 * a sender's retries find what the first delivery did.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type EventRule, eventRuleProblems, type RuledEvent, ruleFor } from '../../agents/eventRules';
import type { ServiceApp, ServiceContext } from '../context';
import { bodySizeLimit } from '../limits';
import { HttpProblem } from '../problems';
import { sendToConversation, startChain } from './deliver';

/** A rule of the service: a team's rule (`EventRule`), or `{type, agent}` as `{type, start: agent}`. */
export interface CloudEventRule extends Partial<EventRule> {
  type: string;
  /** The agent the chain starts with (the same as `start`). */
  agent?: string;
}

/** The webhook receiver (`BatonServiceOptions.cloudEvents`). */
export interface CloudEventOptions {
  /**
   * The shared secret senders sign with: `X-Baton-Signature: sha256=<hex HMAC-SHA256 of the body>`.
   * At least 16 characters.
   */
  secret: string;
  /** The service's own rules, checked before the team's (docs/protocols.md). @default none */
  rules?: CloudEventRule[];
  /** The team the service serves (`baton serve --team`): its `events` rules apply too. */
  team?: { readonly events: readonly EventRule[] };
  /** The prefix of the ids of chains events start. @default "baton-event-" */
  idPrefix?: string;
}

/** Serve `POST /events`. */
export function cloudEventRoutes(
  app: ServiceApp,
  ctx: ServiceContext,
  options: CloudEventOptions,
  maxBodyBytes: number,
): void {
  if (typeof options.secret !== 'string' || options.secret.length < 16)
    throw new Error('cloudEvents.secret must be a shared secret of at least 16 characters');
  const rules = [...serviceRules(options.rules ?? [], ctx.agents), ...(options.team?.events ?? [])];
  const idPrefix = options.idPrefix ?? 'baton-event-';
  app.post('/events', bodySizeLimit(maxBodyBytes), async (c) => {
    const body = await c.req.text();
    verify(options.secret, body, c.req.header('x-baton-signature'));
    const event = eventOf(body, (name) => c.req.header(name));
    const rule = ruleFor(rules, event);
    if (!rule)
      throw new HttpProblem(
        422,
        'No rule for this event',
        `no rule starts a chain or sends a message for events of type "${event.type}" from "${event.source}" (rules: ${rules.map(described).join(', ') || 'none'})`,
      );
    const digest = createHash('sha256').update(`${event.source}\n${event.id}`).digest('hex').slice(0, 32);
    if (rule.message) return sendToConversation(c, ctx, { ...rule, message: rule.message }, event, `event-${digest}`);
    return startChain(c, ctx, { ...rule, start: rule.start! }, event, `${idPrefix}${digest}`);
  });
}

/** The service's rules as team rules (`agent` is `start`), checked against the agents it knows of; throws naming every problem. */
function serviceRules(rules: CloudEventRule[], agents: readonly string[] | undefined): EventRule[] {
  const normal = Array.isArray(rules)
    ? rules.map(({ agent, ...rule }) =>
        agent !== undefined && rule.start === undefined
          ? { ...rule, start: agent }
          : agent !== undefined
            ? { ...rule, agent }
            : rule,
      )
    : rules;
  const problems = eventRuleProblems(normal, agents, 'cloudEvents.rules').map((p) =>
    p.replace(/has an unknown field "agent" \(fields: [^)]*\)/, 'has both "agent" and "start" (give one)'),
  );
  if (problems.length > 0) throw new Error(`cloudEvents.rules: ${problems.join('; ')}`);
  return normal as EventRule[];
}

function described(rule: EventRule): string {
  return rule.source === undefined ? rule.type : `${rule.type} (from ${rule.source})`;
}

function verify(secret: string, body: string, header: string | undefined): void {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '')?.[1];
  if (!given)
    throw new HttpProblem(
      401,
      'Unauthorized',
      'the event must be signed: X-Baton-Signature: sha256=<hex HMAC-SHA256 of the body with the shared secret>',
    );
  const expected = createHmac('sha256', secret).update(body).digest();
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex')))
    throw new HttpProblem(401, 'Unauthorized', 'the signature does not match the body');
}

/** The event of a request: structured mode (`application/cloudevents+json`) or binary mode (`ce-*` headers, the body its data). */
function eventOf(body: string, header: (name: string) => string | undefined): RuledEvent {
  const structured = (header('content-type') ?? '').startsWith('application/cloudevents+json');
  let raw: Record<string, unknown>;
  if (structured) {
    const parsed = parseJson(body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw invalid([{ path: '', message: 'a structured CloudEvent is a JSON object' }]);
    raw = parsed as Record<string, unknown>;
  } else {
    raw = {
      specversion: header('ce-specversion'),
      id: header('ce-id'),
      source: header('ce-source'),
      type: header('ce-type'),
      subject: header('ce-subject'),
      data: (header('content-type') ?? '').includes('json') ? parseJson(body) : body,
    };
  }
  const errors = ['id', 'source', 'type']
    .filter((k) => typeof raw[k] !== 'string' || raw[k] === '' || (raw[k] as string).length > 1000)
    .map((k) => ({
      path: k,
      message: `"${k}" must be a non-empty string of at most 1000 characters${structured ? '' : ` (header ce-${k})`}`,
    }));
  if (raw.specversion !== '1.0')
    errors.push({
      path: 'specversion',
      message: `"specversion" must be "1.0"${structured ? '' : ' (header ce-specversion)'}`,
    });
  if (raw.subject !== undefined && typeof raw.subject !== 'string')
    errors.push({ path: 'subject', message: '"subject" must be a string' });
  if (errors.length > 0) throw invalid(errors);
  return {
    id: raw.id as string,
    source: raw.source as string,
    type: raw.type as string,
    ...(raw.subject !== undefined ? { subject: raw.subject as string } : {}),
    ...(raw.data !== undefined ? { data: raw.data } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid([{ path: '', message: 'the body is not JSON' }]);
  }
}

function invalid(errors: { path: string; message: string }[]): HttpProblem {
  return new HttpProblem(
    400,
    'Invalid CloudEvent',
    'The request is not a CloudEvent baton can read (CloudEvents 1.0, HTTP binding).',
    errors,
  );
}
