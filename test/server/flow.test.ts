/** The handoff flow drawn as SVG: executed handoffs solid and numbered, the others dashed with why, names escaped. */
import { describe, expect, it } from 'vitest';
import type { AuditChain, AuditEvent } from '../../src/audit/chain';
import { describeFlow, flowSvg } from '../../src/server/flow';

const at = '2026-01-01T00:00:00.000Z';
const e = (event: Record<string, unknown>) => ({ at, runId: 'r1', ...event }) as AuditEvent;

function chain(events: AuditEvent[], extra: Partial<AuditChain> = {}): AuditChain {
  return {
    schema: 'baton.audit/v1',
    workflowId: 'wf-1',
    runIds: ['r1'],
    status: 'running',
    events,
    handoffs: [],
    lineage: [],
    input: { agent: 'triage', input: 'hi' },
    ...extra,
  };
}

describe('flowSvg', () => {
  it('draws the input, each agent once, executed handoffs solid with their number and approver, and the answer', () => {
    const handoff = {
      from: 'triage',
      to: 'refunds',
      message: 'm',
      timestamp: at,
      turn: 1,
      approval: {
        handoffId: 'h1',
        outcome: 'approved',
        approver: 'alice',
        requestedAt: at,
        decidedAt: at,
        via: 'update',
      },
    };
    const svg = flowSvg(
      chain(
        [
          e({ kind: 'handoff', index: 1, ...handoff }),
          e({ kind: 'handoff', index: 2, from: 'refunds', to: 'triage', message: 'back', timestamp: at, turn: 2 }),
        ],
        {
          status: 'completed',
          handoffs: [handoff as never],
          result: {
            finalAgent: 'triage',
            handoffChain: [],
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
            output: 'ok',
          },
        },
      ),
    );
    expect(svg.match(/<g class="node agent">/g)).toHaveLength(2);
    expect(svg).toContain('>#1 · alice</text>');
    expect(svg).toContain('>#2</text>');
    expect(svg).toContain('>answer</text>');
    expect(svg).not.toContain('stroke-dasharray');
    expect(svg).toContain('aria-label="Chain wf-1: triage to refunds; completed"');
  });

  it('draws handoffs that did not happen dashed, labelled with why, and escapes what agents and models named', () => {
    const svg = flowSvg(
      chain([
        e({ kind: 'handoff_requested', from: 'triage', to: '<script>', message: 'x', outcome: 'invalid_target' }),
        e({
          kind: 'handoff_requested',
          from: 'triage',
          to: 'sales & co',
          message: 'x',
          outcome: 'awaiting_approval',
          handoffId: 'h2',
        }),
      ]),
    );
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;script&#62;');
    expect(svg).toContain('sales &#38; co');
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2);
    expect(svg).toContain('>awaiting approval</text>');
    expect(svg).toContain('>invalid target</text>');
  });

  it('ends a failed chain at its error', () => {
    const svg = flowSvg(
      chain([e({ kind: 'model_turn', agent: 'triage', model: 'm', execution: { status: 'completed', attempts: 1 } })], {
        status: 'failed',
        failure: { type: 'MaxHandoffsExceededError', message: 'no' },
      }),
    );
    expect(svg).toContain('<g class="node failed">');
    expect(svg).toContain('>MaxHandoffsExceededError</text>');
    expect(describeFlow(chain([]))).toBe('Chain wf-1: no handoffs; running');
  });
});

describe('flowSvg of a chain that delegated', () => {
  it('draws each specialist below the agent that delegated, with how it ended, linking to its chain', () => {
    const child: AuditChain = {
      ...chain([], { workflowId: 'wf-1/orders-1.1', status: 'completed' }),
      handoffs: [{ from: 'orders', to: 'billing', message: 'm', timestamp: at, turn: 1 }],
    };
    const svg = flowSvg(
      chain(
        [
          e({
            kind: 'delegation',
            from: 'triage',
            to: 'orders',
            childWorkflowId: 'wf-1/orders-1.1',
            task: 't',
            outcome: 'completed',
            output: 'ok',
          }),
          e({
            kind: 'delegation',
            from: 'triage',
            to: 'tech',
            childWorkflowId: 'wf-1/tech-1.2',
            task: 't',
            outcome: 'failed',
            error: 'down',
          }),
        ],
        {
          status: 'completed',
          children: [child],
          result: {
            finalAgent: 'triage',
            handoffChain: [],
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
            output: 'ok',
          },
        },
      ),
      { href: (id) => `/runs/${encodeURIComponent(id)}` },
    );
    expect(svg.match(/<g class="node specialist">/g)).toHaveLength(1);
    expect(svg.match(/<g class="node specialist failed">/g)).toHaveLength(1);
    // Its links stay reachable: a picture with links in it is a group, not an image (whose children assistive technology skips).
    expect(svg).toMatch(/^<svg [^>]*role="group" aria-label="Chain wf-1: /);
    expect(flowSvg(chain([]))).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain(
      '<a class="chain-link" href="/runs/wf-1%2Forders-1.1" data-workflow-id="wf-1/orders-1.1"><title>orders&#39;s chain wf-1/orders-1.1: completed</title>',
    );
    // The specialist's own handoffs name its box.
    expect(svg).toContain('>orders → billing</text>');
    expect(svg).toContain('>delegates · answered</text>');
    expect(svg).toContain('>delegates · failed</text>');
    expect(
      describeFlow(
        chain([
          e({
            kind: 'delegation',
            from: 'triage',
            to: 'orders',
            childWorkflowId: 'c',
            task: 't',
            outcome: 'completed',
          }),
        ]),
      ),
    ).toBe('Chain wf-1: no handoffs; triage delegated to orders (completed); running');
  });
});
