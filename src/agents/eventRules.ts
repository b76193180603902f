/**
 * Event rules: which CloudEvents start a chain and which become a message of a conversation. A
 * team declares them (`new Team(agents, { events })`), a service may add its own; the service's
 * `POST /events` reads them (docs/protocols.md, "Events that start chains or steer conversations").
 */
import { MidTurnPolicy } from '../common/conversation';
import { runOptionProblems, type RunOptions } from '../common/options';

/** Where in the event a value comes from: `$.subject`, `$.id`, `$.source`, `$.type`, `$.data` or a path into it (`$.data.ticket`, `$.data.items.0.id`). */
export type EventPath = string;

/**
 * One rule: events of `type` (and `source`, when given) either start a chain at an agent, or are
 * sent to a conversation as a message. The chain's input or the message is the event's data (text
 * as it is, JSON as JSON text), or `input` with each `{{<path>}}` replaced by that value of the event.
 * @example { type: 'com.shop.order.damaged', start: 'intake' }
 * @example { type: 'com.shop.customer.replied', message: { conversation: '$.data.ticket', agent: 'support' }, input: 'The customer wrote: {{$.data.text}}' }
 */
export interface EventRule {
  /** The CloudEvent `type` the rule is for. */
  type: string;
  /** Only events from this `source`. @default any source */
  source?: string;
  /** Start a chain at this agent. */
  start?: string;
  /** Send a message to the conversation whose id the event holds at `conversation`. */
  message?: EventMessageRule;
  /** The chain's input or the message: text with `{{<path>}}` placeholders. @default the event's data */
  input?: string;
  /**
   * Run options of the chain the rule starts, or of the conversation a message starts (an existing
   * conversation keeps its own): limits, budgets, `teamMismatchTimeout`, tags.
   * @default baton's defaults
   */
  options?: RunOptions;
}

/** Where an event's message goes. */
export interface EventMessageRule {
  /** The path of the conversation's id in the event (a string or a number), e.g. `$.data.ticket` or `$.subject`. */
  conversation: EventPath;
  /** The agent a conversation the event starts begins with; without it an event for a conversation that does not exist is refused (422). */
  agent?: string;
  /** What the message does when it arrives while another is answered. @default the conversation's `midTurn` option */
  midTurn?: MidTurnPolicy;
}

/** The CloudEvent attributes a rule and its paths read. */
export interface RuledEvent {
  id: string;
  source: string;
  type: string;
  subject?: string;
  data?: unknown;
}

const RULE_KEYS = ['type', 'source', 'start', 'message', 'input', 'options'];
const MESSAGE_KEYS = ['conversation', 'agent', 'midTurn'];
const MID_TURN = Object.values(MidTurnPolicy) as string[];
const PATH = /^\$\.(subject|id|source|type|data)((?:\.[A-Za-z0-9_-]+)*)$/;
const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The problems of `rules`, each naming the rule's field (`events[1].start`) and what is valid; `agents`: the ids a rule may name, when known. */
export function eventRuleProblems(rules: unknown, agents: readonly string[] | undefined, where = 'events'): string[] {
  if (!Array.isArray(rules)) return [`${where} must be an array of rules {type, source?, start | message, input?}`];
  const problems: string[] = [];
  const seen = new Set<string>();
  const agent = (at: string, id: unknown) => {
    if (typeof id !== 'string' || id === '') problems.push(`${at} must be an agent id`);
    else if (agents && !agents.includes(id))
      problems.push(`${at} "${id}" is not a registered agent (registered: ${agents.join(', ')})`);
  };
  rules.forEach((rule: Record<string, unknown>, i) => {
    const at = `${where}[${i}]`;
    if (!rule || typeof rule !== 'object' || Array.isArray(rule))
      return void problems.push(`${at} must be a rule {type, source?, start | message, input?}`);
    for (const k of Object.keys(rule))
      if (!RULE_KEYS.includes(k)) problems.push(`${at} has an unknown field "${k}" (fields: ${RULE_KEYS.join(', ')})`);
    if (!nonEmpty(rule.type))
      problems.push(`${at}.type must be the CloudEvent type, a non-empty string of at most 1000 characters`);
    if (rule.source !== undefined && !nonEmpty(rule.source))
      problems.push(`${at}.source must be a non-empty string of at most 1000 characters, or left out for any source`);
    if ((rule.start === undefined) === (rule.message === undefined))
      problems.push(
        `${at} must have exactly one of "start" (an agent) or "message" ({conversation, agent?, midTurn?})`,
      );
    if (rule.start !== undefined) agent(`${at}.start`, rule.start);
    if (rule.message !== undefined) problems.push(...messageProblems(`${at}.message`, rule.message, agent));
    if (rule.input !== undefined) problems.push(...templateProblems(`${at}.input`, rule.input));
    if (rule.options !== undefined)
      problems.push(
        ...runOptionProblems(rule.options, `${at}.options`).map((p) =>
          p.startsWith(`"${at}.options"`) ? p : `${at}.options: ${p}`,
        ),
      );
    const key = `${String(rule.type)}\n${String(rule.source ?? '')}`;
    if (seen.has(key))
      problems.push(
        `${at} repeats the rule for type "${String(rule.type)}"${rule.source !== undefined ? ` from "${String(rule.source)}"` : ''}; one rule per type and source`,
      );
    seen.add(key);
  });
  return problems;
}

function messageProblems(at: string, message: unknown, agent: (at: string, id: unknown) => void): string[] {
  if (!message || typeof message !== 'object' || Array.isArray(message))
    return [`${at} must be {conversation, agent?, midTurn?}`];
  const m = message as Record<string, unknown>;
  const problems = Object.keys(m)
    .filter((k) => !MESSAGE_KEYS.includes(k))
    .map((k) => `${at} has an unknown field "${k}" (fields: ${MESSAGE_KEYS.join(', ')})`);
  if (typeof m.conversation !== 'string' || !PATH.test(m.conversation))
    problems.push(
      `${at}.conversation must be the path of the conversation's id in the event: $.subject, $.id, $.source, $.type, $.data or $.data.<field>…, got ${JSON.stringify(m.conversation)}`,
    );
  if (m.agent !== undefined) agent(`${at}.agent`, m.agent);
  if (m.midTurn !== undefined && !MID_TURN.includes(m.midTurn as string))
    problems.push(`${at}.midTurn must be one of ${MID_TURN.join(', ')}, got ${JSON.stringify(m.midTurn)}`);
  return problems;
}

function templateProblems(at: string, input: unknown): string[] {
  if (typeof input !== 'string' || input === '') return [`${at} must be a non-empty text with {{<path>}} placeholders`];
  return [...input.matchAll(PLACEHOLDER)]
    .filter((m) => !PATH.test(m[1]!))
    .map(
      (m) =>
        `${at} has the placeholder {{${m[1]}}}, which is not a path: $.subject, $.id, $.source, $.type, $.data or $.data.<field>…`,
    );
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value.length <= 1000;
}

/** The first rule for `event`: a rule naming its source before one for any source, in the order given. */
export function ruleFor<R extends EventRule>(rules: readonly R[], event: RuledEvent): R | undefined {
  return (
    rules.find((r) => r.type === event.type && r.source === event.source) ??
    rules.find((r) => r.type === event.type && r.source === undefined)
  );
}

/** The value at `path` in `event`; `undefined` when the event has none there. */
export function valueAt(event: RuledEvent, path: EventPath): unknown {
  const match = PATH.exec(path);
  if (!match) return undefined;
  let value: unknown = (event as unknown as Record<string, unknown>)[match[1]!];
  for (const key of match[2]!.split('.').slice(1)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The chain's input or the message of `event` under `rule`; throws naming the paths the event lacks. */
export function eventInput(rule: EventRule, event: RuledEvent): string {
  if (rule.input === undefined)
    return typeof event.data === 'string'
      ? event.data
      : JSON.stringify(event.data ?? { type: event.type, source: event.source });
  const missing: string[] = [];
  const text = rule.input.replace(PLACEHOLDER, (_, path: string) => {
    const value = valueAt(event, path);
    if (value === undefined) missing.push(path);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  if (missing.length > 0) throw new MissingEventValueError(missing);
  return text;
}

/** The event lacks a value its rule reads. */
export class MissingEventValueError extends Error {
  constructor(readonly paths: string[]) {
    super(`the event has no value at ${paths.join(', ')}`);
    this.name = 'MissingEventValueError';
  }
}
