/**
 * Sensitive tool arguments and results on a real Temporal server and worker: the tools get the
 * real values and history keeps them, while the audit, run events, `baton pending`, the HTTP
 * service (approvals list and stream, run view), worker logs, metrics and spans show none of
 * them, except to an approver who may decide the call.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActivityType } from '../../src/common/messages';
import type { RunToolInput } from '../../src/common/team';
import type { RunEvent } from '../../src/client/runEvent';
import { formatPending, formatWaiting } from '../../src/cli/print';
import { decodeHistory } from '../../src/payloads/history';
import { fromPayloads } from '../../src/payloads/read';
import { BatonTracing } from '../../src/worker/telemetry';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';
import {
  CARD,
  EDITED_CARD,
  EMAIL,
  expectNoSecret,
  listedFor,
  paymentsTeam,
  received,
  streamedFor,
} from './sensitive.fixtures';

const server = useTemporalServer();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('sensitive tool arguments and results', () => {
  it('reach the tools and history, are redacted in the audit, events, pending lists, logs, metrics and spans, and shown to an allowed approver only', async () => {
    received.length = 0;
    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
    // The tests' worker logger writes through the console (test/helpers/setup.ts).
    for (const method of ['warn', 'error'] as const) {
      const log = console[method].bind(console);
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
        log(...args);
      });
    }
    const registry = new Registry();
    const exporter = new InMemorySpanExporter();
    const tracing = new BatonTracing({
      spanProcessor: new SimpleSpanProcessor(exporter),
      serviceName: 'baton-sensitive-test',
    });

    await withService(
      server.env,
      paymentsTeam(),
      async ({ call, baton, service }) => {
        const started = await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: {
            agent: 'payments',
            input: `Charge Ann 25 to card ${CARD}, then refund 10.`,
            options: { retry: { initialInterval: '100 milliseconds' } },
          },
        });
        expect(started.status).toBe(201);
        const { workflowId } = started.body;
        const run = baton.getRun(workflowId);
        const events: RunEvent[] = [];
        const following = (async () => {
          for await (const e of run.events()) events.push(e);
        })();

        // While the refund waits: everyone but alice (the approvers name only her) sees it redacted.
        const forViewer = await listedFor(call, TOKENS.viewer, workflowId);
        expect(forViewer).toMatchObject({
          to: 'tool:refundCard',
          canDecide: false,
          sensitive: { arguments: ['cardNumber'], revealed: false },
        });
        expect(forViewer.tool.arguments).toEqual({ cardNumber: '[redacted]', amount: 10 });
        expect(JSON.parse(forViewer.tool.argumentsText)).toEqual({ cardNumber: '[redacted]', amount: 10 });
        expect(forViewer.message).toBe('refundCard({"cardNumber":"[redacted]","amount":10})');
        for (const token of [TOKENS.viewer, TOKENS.bob, TOKENS.admin])
          expectNoSecret(JSON.stringify(await listedFor(call, token, workflowId)));
        // The chain's request beside it, with the waiting call's sensitive values redacted for those who may not see them.
        expect(forViewer.request).toMatchObject({
          agent: 'payments',
          input: 'Charge Ann 25 to card [redacted], then refund 10.',
          startedBy: 'ops',
        });
        const forAlice = await listedFor(call, TOKENS.alice, workflowId);
        expect(forAlice).toMatchObject({ canDecide: true, sensitive: { arguments: ['cardNumber'], revealed: true } });
        expect(forAlice.request.input).toBe(`Charge Ann 25 to card ${CARD}, then refund 10.`);
        expect(forAlice.tool.arguments).toEqual({ cardNumber: CARD, amount: 10 });
        expectNoSecret(JSON.stringify(await streamedFor(service.url, TOKENS.bob, workflowId)));
        expect((await streamedFor(service.url, TOKENS.alice, workflowId)).tool.arguments).toEqual({
          cardNumber: CARD,
          amount: 10,
        });
        const viewed = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer });
        expect(JSON.parse(viewed.body.pendingApprovals[0].tool.arguments)).toEqual({
          cardNumber: '[redacted]',
          amount: 10,
        });
        expectNoSecret(viewed.text);
        const viewedByAlice = await call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.alice });
        expect(JSON.parse(viewedByAlice.body.pendingApprovals[0].tool.arguments)).toEqual({
          cardNumber: CARD,
          amount: 10,
        });

        // `baton pending` (and `--as alice`) from the library.
        const pending = (await baton.pending()).filter((p) => p.workflowId === workflowId);
        expect(pending).toHaveLength(1);
        const line = formatPending(pending[0]!);
        expect(line).toContain('payments → tool refundCard {"cardNumber":"[redacted]","amount":10}');
        expectNoSecret(line);
        expect(
          (await baton.pending({ reveal: 'alice' })).find((p) => p.workflowId === workflowId)!.tool!.arguments,
        ).toEqual({ cardNumber: CARD, amount: 10 });
        expectNoSecret(JSON.stringify(await baton.pending({ reveal: 'bob' })));

        const decided = await call('POST', `/v1/runs/${workflowId}/approvals/${forAlice.handoffId}`, {
          token: TOKENS.alice,
          body: {
            decision: 'approve',
            arguments: { cardNumber: EDITED_CARD, amount: 8 },
            callHash: forAlice.tool.callHash,
          },
        });
        expect(decided.status).toBe(200);
        expect((await run.result()).output).toBe('Charged and refunded.');
        await following;

        // The tools got the real values: the charge twice (the gateway timed out once), the refund as alice edited it.
        expect(received).toEqual([
          {
            tool: 'chargeCard',
            args: { cardNumber: CARD, amount: 25, customer: { email: EMAIL, name: 'Ann' } },
            attempt: 1,
          },
          {
            tool: 'chargeCard',
            args: { cardNumber: CARD, amount: 25, customer: { email: EMAIL, name: 'Ann' } },
            attempt: 2,
          },
          { tool: 'refundCard', args: { cardNumber: EDITED_CARD, amount: 8 }, attempt: 1 },
        ]);

        // The audit, in every form the service gives.
        const audit = await call('GET', `/v1/runs/${workflowId}/audit`, { token: TOKENS.viewer });
        expectNoSecret(audit.text);
        const calls = audit.body.events.filter((e: { kind: string }) => e.kind === 'tool_call');
        expect(JSON.parse(calls[0].arguments)).toEqual({
          cardNumber: '[redacted]',
          amount: 25,
          customer: { email: '[redacted]', name: 'Ann' },
        });
        expect(JSON.parse(calls[0].result)).toEqual({ token: '[redacted]', last4: '1111', charged: 25 });
        expect(calls[0].execution).toMatchObject({ status: 'completed', attempts: 2 });
        expect(JSON.parse(calls[1].arguments)).toEqual({ cardNumber: '[redacted]', amount: 8 });
        expect(JSON.parse(calls[1].requestedArguments)).toEqual({ cardNumber: '[redacted]', amount: 10 });
        expect(audit.body.team.agents.payments.toolSensitivity).toEqual({
          chargeCard: { arguments: ['cardNumber', 'customer.email'], result: ['token'] },
          refundCard: { arguments: ['cardNumber'] },
        });
        const timeline = (await call('GET', `/v1/runs/${workflowId}/audit?format=timeline`, { token: TOKENS.viewer }))
          .text;
        expect(timeline).toContain(
          'tool chargeCard({"cardNumber":"[redacted]","amount":25,"customer":{"email":…) → {"token":"[redacted]","last4":"1111","charged":25}',
        );
        expect(timeline).toContain('asked for payments to call refundCard({"cardNumber":"[redacted]","amount":10})');
        expect(timeline).toContain(
          'approved by "alice" (claimed) with edited arguments {"cardNumber":"[redacted]","amount":8} via update',
        );
        expectNoSecret(timeline);
        for (const format of ['mermaid', 'svg'])
          expectNoSecret(
            (await call('GET', `/v1/runs/${workflowId}/audit?format=${format}`, { token: TOKENS.viewer })).text,
          );
        expectNoSecret(JSON.stringify(await baton.audit(workflowId)));

        // Run events, and the line `baton run` prints for the waiting call.
        expectNoSecret(JSON.stringify(events));
        const asked = events.find((e) => e.kind === 'approval_requested');
        expect(asked?.kind === 'approval_requested' && asked.approval.sensitive).toEqual({
          arguments: ['cardNumber'],
          revealed: false,
        });
        expect(asked?.kind === 'approval_requested' && formatWaiting(asked.approval)).toContain(
          'payments → tool refundCard {"cardNumber":"[redacted]","amount":10} waits for approval',
        );
        const decision = events.find((e) => e.kind === 'approval_decided');
        expect(decision?.kind === 'approval_decided' && decision.decision.editedArguments).toBe(
          '{"cardNumber":"[redacted]","amount":8}',
        );

        // History keeps the real values (encrypt it at rest); the failure of the timed-out attempt does not repeat them.
        const history = await decodeHistory(
          await run.handle.fetchHistory(),
          baton.client.options.loadedDataConverter.payloadCodecs,
        );
        const scheduled = (history.events ?? []).filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === ActivityType.RUN_TOOL,
        );
        expect(
          JSON.parse(
            fromPayloads<RunToolInput>(scheduled[0]!.activityTaskScheduledEventAttributes!.input)!.call.arguments,
          ),
        ).toMatchObject({ cardNumber: CARD });
        const retried = (history.events ?? []).find((e) => e.activityTaskStartedEventAttributes?.lastFailure);
        expect(retried?.activityTaskStartedEventAttributes?.lastFailure?.message).toBe(
          'gateway timeout charging card [redacted]',
        );
      },
      { registry, service: { tracing }, worker: { tracing } },
    );

    // Worker logs: the failed attempt is logged, without the card.
    const failedAttempt = logged.filter((l) => l.includes('Activity failed'));
    expect(failedAttempt.some((l) => l.includes('gateway timeout charging card [redacted]'))).toBe(true);
    expectNoSecret(logged.join(''));
    // Metrics and spans carry names and counts, never values.
    const metrics = await registry.metrics();
    expect(metrics).toMatch(
      /baton_tool_calls_total\{agent="payments",tool="chargeCard",outcome="ok",team="team@[0-9a-f]{12}"\} 1/,
    );
    expectNoSecret(metrics);
    await tracing.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.some((s) => s.name === 'execute_tool chargeCard')).toBe(true);
    expectNoSecret(
      JSON.stringify(
        spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events.map((e) => e.attributes) })),
      ),
    );
    await tracing.shutdown();
  });
});
