/** `/metrics` after known chains: the service's and its worker's counters, with every activation replayed. */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) return [];
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    return [{ name: m[1]!, labels, value: Number(m[3]) }];
  });
}

/** The value of `name` with (at least) `labels`; 0 when no sample matches, undefined when the metric is not declared. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  if (!text.includes(`# TYPE ${name.replace(/_(bucket|sum|count)$/, '')} `)) return undefined;
  const match = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return match.reduce((sum, s) => sum + s.value, 0);
}

describe('/metrics', () => {
  it('counts the chains, handoffs, approvals, model and tool calls of known chains once, with every workflow activation replayed', async () => {
    const registry = new Registry();
    await withService(
      server.env,
      refundTeam(),
      async ({ call, baton }) => {
        const scrape = async () => (await call('GET', '/metrics')).text;
        const { workflowId } = (
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'refund order 42' } })
        ).body;
        const waiting = await waitFor(scrape, (text) => value(text, 'baton_approvals_waiting') === 1);
        expect(
          value(waiting, 'baton_approvals_requested_total', { from: 'triage', to: 'refunds', kind: 'handoff' }),
        ).toBe(1);
        const [pending] = await baton.pending();
        const askedAt = Date.parse(pending!.requestedAt);
        await call('POST', `/v1/runs/${workflowId}/approvals/${pending!.handoffId}`, {
          token: TOKENS.alice,
          body: { decision: 'approve' },
        });
        const decidedBy = Date.now();
        const result = await baton.getRun(workflowId).result();
        const failedId = (
          await call('POST', '/v1/runs', {
            token: TOKENS.ops,
            body: { agent: 'triage', input: 'refund order 43', options: { maxHandoffs: 0 } },
          })
        ).body.workflowId;
        await baton
          .getRun(failedId)
          .result()
          .catch(() => undefined);

        const text = await waitFor(
          scrape,
          (t) =>
            value(t, 'baton_chains_total', { outcome: 'failed' }) === 1 && value(t, 'baton_approvals_waiting') === 0,
        );
        expect(value(text, 'baton_handoffs_total', { from: 'triage', to: 'refunds' })).toBe(1);
        expect(value(text, 'baton_chains_total', { outcome: 'completed' })).toBe(1);
        expect(value(text, 'baton_chains_total', { outcome: 'failed', error: 'MaxHandoffsExceededError' })).toBe(1);
        expect(value(text, 'baton_approvals_requested_total')).toBe(1);
        expect(
          value(text, 'baton_approvals_decided_total', { outcome: 'approved', via: 'update', kind: 'handoff' }),
        ).toBe(1);
        expect(value(text, 'baton_approval_wait_seconds_count', { outcome: 'approved' })).toBe(1);
        const waited = value(text, 'baton_approval_wait_seconds_sum', { outcome: 'approved' })!;
        expect(waited).toBeGreaterThan(0);
        expect(waited).toBeLessThanOrEqual((decidedBy - askedAt) / 1000 + 1);

        expect(value(text, 'baton_model_calls_total', { agent: 'triage', model: 'scripted', outcome: 'ok' })).toBe(2);
        expect(value(text, 'baton_model_calls_total', { agent: 'refunds', model: 'scripted', outcome: 'ok' })).toBe(2);
        expect(value(text, 'baton_model_call_seconds_count')).toBe(4);
        const tokens = (type: string, agent?: string) =>
          value(text, 'baton_model_tokens_total', { type, ...(agent ? { agent } : {}) });
        const failedUsage = (await call('GET', `/v1/runs/${failedId}`, { token: TOKENS.viewer })).body.usage;
        expect(tokens('input')).toBe(result.usage.inputTokens + failedUsage.inputTokens);
        expect(tokens('output')).toBe(result.usage.outputTokens + failedUsage.outputTokens);
        expect(value(text, 'baton_tool_calls_total', { agent: 'refunds', tool: 'lookupOrder', outcome: 'ok' })).toBe(1);
        expect(value(text, 'baton_tool_call_seconds_count', { tool: 'lookupOrder' })).toBe(1);

        // The chain limited to no handoffs ran out of its handoffs budget; no other control acted.
        expect(value(text, 'baton_budgets_exceeded_total', { budget: 'handoffs', agent: 'triage' })).toBe(1);
        expect(value(text, 'baton_control_events_total', { control: 'budget_exceeded', agent: 'triage' })).toBe(1);
        expect(value(text, 'baton_control_events_total')).toBe(1);
        for (const declared of [
          'baton_loops_detected_total',
          'baton_circuit_breakers_open',
          'baton_guardrail_trips_total',
        ]) {
          expect(value(text, declared), declared).toBe(0);
        }
        expect(value(text, 'baton_runs_started_total', { agent: 'triage' })).toBe(2);
        expect(value(text, 'baton_approval_decisions_total', { decision: 'approve' })).toBe(1);
        expect(value(text, 'baton_http_requests_total', { method: 'POST', route: '/v1/runs', status: '201' })).toBe(2);
        expect(
          value(text, 'baton_http_requests_total', { route: '/v1/runs/:id/approvals/:approvalId', status: '200' }),
        ).toBe(1);
        expect(
          samples(text).some((s) => s.name === 'baton_http_requests_total' && s.labels.route!.includes(workflowId)),
        ).toBe(false);
      },
      { registry, worker: { worker: { maxCachedWorkflows: 0 } } },
    );
  });

  it('counts model calls run as local activities as it counts the others', async () => {
    await withService(
      server.env,
      refundTeam(),
      async ({ call, baton }) => {
        const scrape = async () => (await call('GET', '/metrics')).text;
        const { workflowId } = (
          await call('POST', '/v1/runs', {
            token: TOKENS.ops,
            body: { agent: 'triage', input: 'refund order 44', options: { maxHandoffs: 0, modelActivity: 'local' } },
          })
        ).body;
        const failure = await baton
          .getRun(workflowId)
          .result()
          .catch((e: unknown) => e);
        expect((failure as Error).name).toBe('MaxHandoffsExceededError');
        const text = await waitFor(scrape, (t) => value(t, 'baton_chains_total', { outcome: 'failed' }) === 1);
        expect(value(text, 'baton_model_calls_total', { agent: 'triage', model: 'scripted', outcome: 'ok' })).toBe(1);
        expect(value(text, 'baton_model_call_seconds_count')).toBe(1);
        expect(value(text, 'baton_model_tokens_total', { type: 'input', agent: 'triage' })).toBeGreaterThan(0);
      },
      { registry: new Registry() },
    );
  });
});
