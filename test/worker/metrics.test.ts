/** What the workflow's commands tell the worker's metrics: tool approvals beside handoff approvals, and the controls. */
import { defaultPayloadConverter } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { APPROVAL_EVENT_MEMO } from '../../src/common/messages';
import { chainFacts } from '../../workflows/telemetry/chainFacts';
import { BatonMetrics } from '../../src/worker/telemetry/metrics';

type Command = coresdk.workflow_commands.IWorkflowCommand;
const memoEvent = (event: Record<string, unknown>): Command => ({
  modifyWorkflowProperties: {
    upsertedMemo: { fields: { [APPROVAL_EVENT_MEMO]: defaultPayloadConverter.toPayload(event)! } },
  },
});
const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T00:00:30.000Z';
const tool = { name: 'issueRefund', arguments: '{"orderId":"A1"}', toolCallId: 'c1', callHash: 'h' };
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function sample(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const family = name.replace(/_(sum|count|bucket)$/, '');
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name || m.name === family);
  if (!metric) throw new Error(`${name} is not registered`);
  return (metric.values as { labels: Record<string, string | number>; value: number; metricName?: string }[])
    .filter(
      (v) => (v.metricName ?? name) === name && Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

describe('chain facts', () => {
  it('tell a tool call put to approval from a handoff, and read control events from the memo', () => {
    const facts = chainFacts([
      memoEvent({
        type: 'approval_requested',
        handoffId: 'a1',
        from: 'triage',
        to: 'refunds',
        message: 'm',
        requestedAt: at,
        onTimeout: 'reject',
      }),
      memoEvent({
        type: 'approval_requested',
        handoffId: 'a2',
        from: 'refunds',
        to: 'tool:issueRefund',
        message: 'issueRefund({})',
        requestedAt: at,
        onTimeout: 'reject',
        tool,
      }),
      memoEvent({
        type: 'approval_decided',
        handoffId: 'a2',
        outcome: 'approved',
        approver: 'alice',
        requestedAt: at,
        decidedAt: later,
        via: 'update',
        tool: 'issueRefund',
        editedArguments: '{}',
      }),
      memoEvent({
        type: 'control',
        control: 'guardrail_tripped',
        at,
        agent: 'refunds',
        guardrail: 'pii',
        stage: 'output',
        reason: 'email',
        onTrip: 'feedback',
      }),
    ]);
    expect(facts).toEqual([
      { kind: 'approval_requested', from: 'triage', to: 'refunds', handoffId: 'a1' },
      { kind: 'approval_requested', from: 'refunds', to: 'tool:issueRefund', handoffId: 'a2', tool: 'issueRefund' },
      {
        kind: 'approval_decided',
        outcome: 'approved',
        via: 'update',
        waitedMs: 30_000,
        approver: 'alice',
        handoffId: 'a2',
        tool: 'issueRefund',
      },
      {
        kind: 'control',
        control: {
          kind: 'guardrail_tripped',
          agent: 'refunds',
          guardrail: 'pii',
          stage: 'output',
          reason: 'email',
          onTrip: 'feedback',
        },
      },
    ]);
  });
});

describe('the worker metrics', () => {
  it('count tool approvals like handoff approvals, labelled kind="tool"', async () => {
    const registry = new Registry();
    const metrics = BatonMetrics.in(registry);
    metrics.record([
      { kind: 'approval_requested', from: 'triage', to: 'refunds', handoffId: 'a1' },
      { kind: 'approval_requested', from: 'refunds', to: 'tool:issueRefund', handoffId: 'a2', tool: 'issueRefund' },
      {
        kind: 'approval_decided',
        outcome: 'approved',
        via: 'update',
        waitedMs: 30_000,
        handoffId: 'a2',
        tool: 'issueRefund',
      },
      { kind: 'approval_decided', outcome: 'rejected', via: 'signal', waitedMs: 1_000, handoffId: 'a1' },
    ]);
    expect(
      await sample(registry, 'baton_approvals_requested_total', { kind: 'handoff', from: 'triage', to: 'refunds' }),
    ).toBe(1);
    expect(
      await sample(registry, 'baton_approvals_requested_total', {
        kind: 'tool',
        from: 'refunds',
        to: 'tool:issueRefund',
      }),
    ).toBe(1);
    expect(
      await sample(registry, 'baton_approvals_decided_total', { kind: 'tool', outcome: 'approved', via: 'update' }),
    ).toBe(1);
    expect(await sample(registry, 'baton_approvals_decided_total', { kind: 'handoff', outcome: 'rejected' })).toBe(1);
    expect(await sample(registry, 'baton_approval_wait_seconds_sum', { kind: 'tool' })).toBe(30);
  });

  it('count each control event by kind and agent, and feed the loop, breaker, guardrail and budget metrics', async () => {
    const registry = new Registry();
    const metrics = BatonMetrics.in(registry);
    const control = (c: Record<string, unknown>) => ({ kind: 'control' as const, control: c as never });
    metrics.record([
      control({
        kind: 'loop_detected',
        from: 'triage',
        to: 'billing',
        cycle: ['triage', 'billing', 'triage'],
        pattern: 'repeat',
        refused: true,
      }),
      control({ kind: 'target_failed', agent: 'billing', reason: 'down' }),
      control({ kind: 'breaker_opened', agent: 'billing', failures: 3, until: inAnHour() }),
      control({ kind: 'breaker_opened', agent: 'tech', failures: 3, until: inAnHour() }),
      control({ kind: 'breaker_refused', agent: 'billing', from: 'triage', until: inAnHour() }),
      control({
        kind: 'guardrail_tripped',
        agent: 'refunds',
        guardrail: 'pii',
        stage: 'output',
        reason: 'email',
        onTrip: 'feedback',
      }),
      control({
        kind: 'budget_exceeded',
        budget: 'tokens',
        limit: 10,
        used: 12,
        agent: 'refunds',
        onBudgetExceeded: 'fail',
      }),
    ]);
    expect(await sample(registry, 'baton_control_events_total', { control: 'loop_detected', agent: 'triage' })).toBe(1);
    expect(await sample(registry, 'baton_control_events_total', { control: 'breaker_opened' })).toBe(2);
    expect(await sample(registry, 'baton_control_events_total', { control: 'breaker_refused', agent: 'billing' })).toBe(
      1,
    );
    expect(await sample(registry, 'baton_control_events_total')).toBe(7);
    expect(
      await sample(registry, 'baton_loops_detected_total', { agent: 'triage', pattern: 'repeat', refused: 'true' }),
    ).toBe(1);
    expect(
      await sample(registry, 'baton_guardrail_trips_total', { agent: 'refunds', guardrail: 'pii', stage: 'output' }),
    ).toBe(1);
    expect(await sample(registry, 'baton_budgets_exceeded_total', { budget: 'tokens', agent: 'refunds' })).toBe(1);
    expect(await sample(registry, 'baton_circuit_breakers_open', { target: 'billing' })).toBe(1);
    expect(await sample(registry, 'baton_circuit_breakers_open')).toBe(2);

    // Half-open lets a trial through: no longer open. A breaker whose cooldown passed is not open either.
    metrics.record([
      control({ kind: 'breaker_half_open', agent: 'billing' }),
      control({ kind: 'breaker_opened', agent: 'sales', failures: 1, until: new Date(Date.now() - 1).toISOString() }),
    ]);
    expect(await sample(registry, 'baton_circuit_breakers_open', { target: 'billing' })).toBe(0);
    expect(await sample(registry, 'baton_circuit_breakers_open')).toBe(1);
  });
});
