/** Spans of a known chain, in memory: one trace from the HTTP request through the workflow to each model turn, tool call and handoff. */
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { BatonTracing } from '../../src/worker/telemetry';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();

/** Start the refund chain with a caller's trace context, approve it, and return that trace's spans. */
async function tracedChain(options: { maxCachedWorkflows?: number }) {
  const exporter = new InMemorySpanExporter();
  const tracing = new BatonTracing({ spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'baton-test' });
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const result = await withService(
    server.env,
    refundTeam(),
    async ({ call, baton }) => {
      const started = await call('POST', '/v1/runs', {
        token: TOKENS.ops,
        body: { agent: 'triage', input: 'refund order 42' },
        headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      const { workflowId } = started.body;
      const [pending] = await waitFor(
        () => baton.pending(),
        (p) => p.some((x) => x.workflowId === workflowId),
      );
      await call('POST', `/v1/runs/${workflowId}/approvals/${pending!.handoffId}`, {
        token: TOKENS.alice,
        body: { decision: 'approve' },
      });
      return baton.getRun(workflowId).result();
    },
    {
      baton: (queue) =>
        new Baton({
          client: new Client({ connection: server.env.connection, interceptors: tracing.clientInterceptors() }),
          taskQueue: queue,
        }),
      service: { tracing },
      worker: {
        tracing,
        ...(options.maxCachedWorkflows !== undefined
          ? { worker: { maxCachedWorkflows: options.maxCachedWorkflows } }
          : {}),
      },
    },
  );
  await tracing.forceFlush();
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  await tracing.shutdown();
  return { spans, callerSpan, result };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const parentOf = (spans: ReadableSpan[], s: ReadableSpan) =>
  spans.find((p) => p.spanContext().spanId === s.parentSpanId);

describe('tracing', () => {
  it('puts the request, the workflow, its activities and a span per model turn, tool call and handoff in the caller’s trace', async () => {
    const { spans, callerSpan, result } = await tracedChain({});
    const [request] = named(spans, 'POST /v1/runs');
    expect(request?.parentSpanId).toBe(callerSpan);
    expect(request?.attributes).toMatchObject({ 'http.route': '/v1/runs', 'http.response.status_code': 201 });
    const [start] = named(spans, 'StartWorkflow:handoffRun');
    expect(parentOf(spans, start!)).toBe(request);
    const [workflow] = named(spans, 'RunWorkflow:handoffRun');
    expect(parentOf(spans, workflow!)).toBe(start);
    // The workflow's info as attributes, its plain values only: never its memo (what waits for approval, with its arguments).
    expect(workflow!.attributes).toMatchObject({ workflowId: result.workflowId, workflowType: 'handoffRun' });
    expect(Object.keys(workflow!.attributes)).not.toContain('memo');

    const handoffs = named(spans, 'handoff triage → refunds');
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]!.attributes).toMatchObject({
      'baton.handoff.from': 'triage',
      'baton.handoff.to': 'refunds',
      'baton.handoff.index': 1,
      'baton.approval.approver': 'alice',
    });
    expect(parentOf(spans, handoffs[0]!)).toBe(workflow);

    const turns = named(spans, 'chat scripted');
    expect(turns.map((s) => s.attributes['gen_ai.agent.name'])).toEqual(['triage', 'refunds', 'refunds']);
    const tokens = (key: string) => turns.reduce((sum, s) => sum + Number(s.attributes[key]), 0);
    expect(tokens('gen_ai.usage.input_tokens')).toBe(result.usage.inputTokens);
    expect(tokens('gen_ai.usage.output_tokens')).toBe(result.usage.outputTokens);
    for (const turn of turns) {
      expect(turn.attributes).toMatchObject({ 'gen_ai.request.model': 'scripted', 'gen_ai.provider.name': 'scripted' });
      const activity = parentOf(spans, turn)!;
      expect(activity.name).toBe('RunActivity:callModel');
      expect(parentOf(spans, parentOf(spans, activity)!)).toBe(workflow);
    }
    const [tool] = named(spans, 'execute_tool lookupOrder');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.agent.name': 'refunds',
      'gen_ai.tool.name': 'lookupOrder',
      'baton.tool.ok': true,
    });
    expect(parentOf(spans, tool!)?.name).toBe('RunActivity:runTool');
  });

  it('makes no duplicate spans when the workflow is replayed from history', async () => {
    const { spans } = await tracedChain({ maxCachedWorkflows: 0 });
    expect(named(spans, 'handoff triage → refunds')).toHaveLength(1);
    expect(named(spans, 'chat scripted')).toHaveLength(3);
    expect(named(spans, 'execute_tool lookupOrder')).toHaveLength(1);
    expect(named(spans, 'StartActivity:callModel')).toHaveLength(3);
    expect(named(spans, 'StartActivity:runTool')).toHaveLength(1);
    expect(named(spans, 'RunWorkflow:handoffRun')).toHaveLength(1);
  });
});
