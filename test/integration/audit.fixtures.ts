/**
 * The teams the audit tests run on a real server, with their scripted steps, and the readers the
 * tests take an audit apart with: its event kinds, its events of one kind, its handoff requests.
 */
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import type { AuditChain, AuditEvent } from '../../src/audit/chain';
import { HANDOFF_TOOL_NAME } from '../../src/common/handoff';
import { scriptedAgent as agent } from '../helpers/agents';

/** The kinds of `events` in order, without the signals and updates that arrived. */
export const kinds = (events: AuditEvent[]) =>
  events.map((e) => e.kind).filter((k) => k !== 'signal' && k !== 'update');

/** The events of `audit` of kind `k`, typed as that kind. */
export const byKind = <K extends AuditEvent['kind']>(audit: AuditChain, k: K) =>
  audit.events.filter((e): e is Extract<AuditEvent, { kind: K }> => e.kind === k);

/** How many handoffs `events` record as requested. */
export function byHandoffRequests(events: AuditEvent[]): number {
  return events.filter((e) => e.kind === 'handoff_requested').length;
}

/** Looks an order up: it was delivered. */
export const lookupOrder = defineTool({
  name: 'lookupOrder',
  description: 'Look up an order',
  parameters: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, status: 'delivered' }),
});

/**
 * triage hands off to refunds twice (alice or bob approves); refunds looks order 42 up, failing
 * twice first, and answers.
 */
export const supportTeam = () =>
  new Team([
    agent('triage', [
      { handoff: { to: 'refunds', message: 'refund 42' } },
      { handoff: { to: 'refunds', message: 'refund 42, please' } },
    ]),
    agent(
      'refunds',
      [
        { toolCalls: [{ name: 'lookupOrder', arguments: { orderId: '42' } }], failAttempts: 2 },
        { text: 'Refunded order 42.', usage: { inputTokens: 50, outputTokens: 7 } },
      ],
      { tools: [lookupOrder], approval: { approvers: ['alice', 'bob'] } },
    ),
  ]);

/** a and b hand off to each other three times each. */
export function pingPongTeam(): Team {
  const ping = Array.from({ length: 3 }, () => ({ handoff: { to: 'b', message: 'you' } }));
  return new Team([
    agent('a', ping),
    agent(
      'b',
      ping.map(() => ({ handoff: { to: 'a', message: 'no, you' } })),
    ),
  ]);
}

/** a hands off to b, which needs an approval and would answer `never`. */
export const gatedTeam = () =>
  new Team([
    agent('a', [{ handoff: { to: 'b', message: 'over' } }]),
    agent('b', [{ text: 'never' }], { approval: {} }),
  ]);

/**
 * a looks an order up, calls a tool it does not have and hands off with no target, then to an
 * agent that is not there, then twice in one turn; b answers empty once, then `done`.
 */
export function answeredByWorkflowTeam(): Team {
  const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
  return new Team([
    agent(
      'a',
      [
        {
          toolCalls: [
            call('lookupOrder', { orderId: '7' }),
            call('refundAll', {}),
            call(HANDOFF_TOOL_NAME, { message: 'no target' }),
          ],
        },
        { handoff: { to: 'nobody', message: 'lost' } },
        {
          toolCalls: [
            call(HANDOFF_TOOL_NAME, { to: 'b', message: 'first' }),
            call(HANDOFF_TOOL_NAME, { to: 'a', message: 'second' }),
          ],
        },
      ],
      { tools: [lookupOrder] },
    ),
    agent('b', [{ text: '' }, { text: 'done' }]),
  ]);
}

/** a hands off to b, whose approval is rejected after a second undecided; a then answers itself. */
export const unapprovedTeam = () =>
  new Team([
    agent('a', [{ handoff: { to: 'b', message: 'over' } }, { text: 'did it myself' }]),
    agent('b', [], { approval: { timeout: '1 second', onTimeout: 'reject' } }),
  ]);

/** a hands off to ghost, an agent the team does not have. */
export const ghostTeam = () => new Team([agent('a', [{ handoff: { to: 'ghost', message: 'boo' } }]), agent('b', [])]);
