import { describe, expect, it } from 'vitest';
import type { AuditChain, AuditEvent } from '../../src/audit/chain';
import { formatTimeline, toMermaid } from '../../src/audit/format';
import { redactAudit } from '../../src/audit/redact';
import { AUDIT_SCHEMA } from '../../src/audit/types';
import type { TeamSpec } from '../../src/common/team';

const CARD = '4111111111111111';
const args = JSON.stringify({ cardNumber: CARD, amount: 25 });
const edited = JSON.stringify({ cardNumber: '5500005555555559', amount: 20 });
const where = { at: '2025-01-01T00:00:00.000Z', runId: 'r1' };

const team: TeamSpec = {
  agents: {
    payments: {
      id: 'payments',
      name: 'payments',
      description: '',
      instructions: '',
      model: { provider: 'scripted', model: 'scripted' } as never,
      tools: [],
      handoffs: ['support'],
      toolSensitivity: { charge: { arguments: ['cardNumber'], result: ['token'] } },
    },
    support: {
      id: 'support',
      name: 'support',
      description: '',
      instructions: '',
      model: { provider: 'scripted', model: 'scripted' } as never,
      tools: [],
      handoffs: [],
    },
  },
  approvals: [],
  hasHandoffListeners: false,
};

function chainOf(events: Record<string, unknown>[], extra: Partial<AuditChain> = {}): AuditChain {
  return {
    schema: AUDIT_SCHEMA,
    workflowId: 'w',
    runIds: ['r1'],
    status: 'failed',
    team,
    events: events.map((e) => ({ ...where, ...e })) as AuditEvent[],
    handoffs: [],
    lineage: [],
    ...extra,
  };
}

describe('redactAudit', () => {
  it('redacts a sensitive tool call everywhere the audit shows it, and every value it repeats', () => {
    const chain = redactAudit(
      chainOf(
        [
          {
            kind: 'model_turn',
            agent: 'payments',
            model: 'scripted',
            toolCalls: [{ name: 'charge', arguments: args }],
            execution: { status: 'completed', attempts: 1 },
          },
          {
            kind: 'approval_requested',
            handoffId: 'tool-1',
            from: 'payments',
            to: 'tool:charge',
            message: `charge(${args})`,
            tool: { name: 'charge', arguments: args, toolCallId: 'c1', callHash: 'h' },
          },
          {
            kind: 'update',
            name: 'decideHandoff',
            input: { handoffId: 'tool-1', approver: 'alice', decision: 'approve', arguments: JSON.parse(edited) },
          },
          {
            kind: 'approval_decided',
            handoffId: 'tool-1',
            outcome: 'approved',
            approver: 'alice',
            requestedAt: where.at,
            decidedAt: where.at,
            via: 'update',
            tool: 'charge',
            editedArguments: edited,
          },
          {
            kind: 'tool_call',
            agent: 'payments',
            tool: 'charge',
            arguments: edited,
            requestedArguments: args,
            answeredBy: 'tool',
            ok: true,
            result: '{"token":"tok_1","charged":20}',
            execution: { status: 'completed', attempts: 1 },
          },
          {
            kind: 'tool_call',
            agent: 'payments',
            tool: 'charge',
            arguments: args,
            answeredBy: 'tool',
            ok: false,
            result: `Error: card ${CARD} declined`,
            execution: { status: 'completed', attempts: 1 },
          },
          {
            kind: 'tool_call',
            agent: 'payments',
            tool: 'charge',
            arguments: args,
            answeredBy: 'tool',
            execution: { status: 'failed', attempts: 3, error: `gateway refused ${CARD}` },
          },
          {
            kind: 'decision_refused',
            handoffId: 'tool-1',
            approver: 'bob',
            reason: `arguments {"cardNumber":"${CARD}"} are stale`,
            via: 'update',
          },
          {
            kind: 'handoff',
            index: 1,
            from: 'payments',
            to: 'support',
            message: 'over to you',
            timestamp: where.at,
            turn: 2,
            transfer: {
              context: 'full',
              input: 'message',
              filters: [],
              transferSystemMessage: false,
              messages: [
                { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'charge', arguments: args }] },
                { role: 'tool', toolCallId: 'c1', content: '{"token":"tok_1"}' },
              ],
            },
          },
          { kind: 'failed', type: 'ToolExecutionError', message: `tool charge failed: gateway refused ${CARD}` },
        ],
        { failure: { type: 'ToolExecutionError', message: `tool charge failed: gateway refused ${CARD}` } },
      ),
    );
    const json = JSON.stringify(chain);
    expect(json).not.toContain(CARD);
    expect(json).not.toContain('5500005555555559');
    expect(json).not.toContain('tok_1');
    const calls = chain.events.filter((e) => e.kind === 'tool_call');
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ cardNumber: '[redacted]', amount: 20 });
    expect(JSON.parse(calls[0]!.requestedArguments!)).toEqual({ cardNumber: '[redacted]', amount: 25 });
    expect(JSON.parse(calls[0]!.result!)).toEqual({ token: '[redacted]', charged: 20 });
    expect(calls[1]!.result).toBe('Error: card [redacted] declined');
    expect(calls[2]!.execution!.error).toBe('gateway refused [redacted]');
    expect(chain.events.find((e) => e.kind === 'update')).toMatchObject({
      input: { arguments: { cardNumber: '[redacted]', amount: 20 } },
    });
    expect(chain.events.find((e) => e.kind === 'approval_requested')).toMatchObject({
      message: 'charge({"cardNumber":"[redacted]","amount":25})',
    });
    expect(chain.failure!.message).toBe('tool charge failed: gateway refused [redacted]');
    const timeline = formatTimeline(chain);
    expect(timeline).toContain('asked for payments to call charge({"cardNumber":"[redacted]","amount":25}) (tool-1)');
    expect(timeline).toContain(
      'approved by "alice" (claimed) with edited arguments {"cardNumber":"[redacted]","amount":20} via update',
    );
    expect(timeline).not.toContain(CARD);
    expect(toMermaid(chain)).not.toContain(CARD);
  });

  it('leaves a chain whose team declares nothing sensitive as it is', () => {
    const plain = chainOf(
      [
        {
          kind: 'tool_call',
          agent: 'support',
          tool: 'charge',
          arguments: args,
          answeredBy: 'tool',
          ok: true,
          result: 'ok',
        },
      ],
      { team: { ...team, agents: { support: team.agents.support! } } },
    );
    const before = JSON.stringify(plain);
    expect(JSON.stringify(redactAudit(plain))).toBe(before);
  });
});
