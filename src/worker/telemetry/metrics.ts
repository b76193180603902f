/**
 * A worker's Prometheus metrics: model calls, tokens and latency by agent and model, tool calls and
 * failures (an activity interceptor, `callMetrics.ts`); handoffs, approvals of handoffs and tool calls (told apart by
 * `kind`), chain outcomes and what the controls did — loops, circuit breakers, guardrails, budgets
 * (reported by the workflow through a sink).
 */
import type { ActivityInterceptorsFactory, InjectedSinks, WorkerOptions } from '@temporalio/worker';
import { Counter, Gauge, Histogram, register as globalRegistry, type Registry } from 'prom-client';
import type { ControlEvent } from '../../common/controls';
import type { ChainFact } from '../../../workflows/telemetry/chainFacts';
import type { BatonMetricsSinks } from '../../../workflows/telemetry/workflowMetrics';
import { ActionMetrics } from './actionMetrics';
import { label, MetricsActivityInbound } from './callMetrics';
import { EconomicsMetrics } from './economicsMetrics';

/** Options of a worker's metrics (`createWorker({ metrics })`). */
export interface WorkerMetricsOptions {
  /** Where the metrics are registered. @default prom-client's global registry */
  registry?: Registry;
  /**
   * Serve `GET /metrics` on this port (with the process's own metrics). Without it, serve the
   * registry yourself. @default `BATON_METRICS_PORT` when set
   */
  port?: number;
}

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const WAIT_SECONDS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 86400];

/** baton's metric families in one registry; created once per registry, shared by every worker in it. */
export class BatonMetrics {
  readonly handoffs: Counter<'from' | 'to'>;
  readonly chains: Counter<'outcome' | 'error'>;
  readonly approvalsRequested: Counter<'from' | 'to' | 'kind'>;
  readonly approvalsDecided: Counter<'outcome' | 'via' | 'kind'>;
  readonly approvalWait: Histogram<'outcome' | 'kind'>;
  readonly modelCalls: Counter<'agent' | 'model' | 'outcome' | 'team'>;
  readonly modelTokens: Counter<'agent' | 'model' | 'type'>;
  readonly modelSeconds: Histogram<'agent' | 'model'>;
  readonly toolCalls: Counter<'agent' | 'tool' | 'outcome' | 'team'>;
  readonly teamInfo: Gauge<'team' | 'hash' | 'deployment'>;
  readonly teamMismatches: Counter<'team' | 'worker_team' | 'step'>;
  readonly toolSeconds: Histogram<'agent' | 'tool'>;
  readonly loopsDetected: Counter<'agent' | 'pattern' | 'refused'>;
  readonly breakersOpen: Gauge<'target'>;
  readonly budgetsExceeded: Counter<'budget' | 'agent'>;
  readonly guardrailTrips: Counter<'agent' | 'guardrail' | 'stage'>;
  readonly controlEvents: Counter<'control' | 'agent'>;
  readonly economics: EconomicsMetrics;
  readonly actions: ActionMetrics;
  /** When each open circuit breaker (of any chain this worker saw open it) lets a trial through, by target (ms). */
  private readonly openUntil = new Map<string, number[]>();

  private static readonly byRegistry = new WeakMap<Registry, BatonMetrics>();

  /** The metrics of `registry`, registered on first use. */
  static in(registry: Registry = globalRegistry): BatonMetrics {
    let metrics = BatonMetrics.byRegistry.get(registry);
    if (!metrics) {
      metrics = new BatonMetrics(registry);
      BatonMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(readonly registry: Registry) {
    const on = { registers: [registry] };
    this.handoffs = new Counter({
      name: 'baton_handoffs_total',
      help: 'Handoffs executed, by source and target agent',
      labelNames: ['from', 'to'],
      ...on,
    });
    this.chains = new Counter({
      name: 'baton_chains_total',
      help: 'Chains ended, by outcome (completed, failed, cancelled) and error type',
      labelNames: ['outcome', 'error'],
      ...on,
    });
    const kind = 'kind: handoff, or tool for a tool call (whose `to` is tool:<name>)';
    this.approvalsRequested = new Counter({
      name: 'baton_approvals_requested_total',
      help: `Handoffs and tool calls that asked for approval, by agent, target and ${kind}`,
      labelNames: ['from', 'to', 'kind'],
      ...on,
    });
    this.approvalsDecided = new Counter({
      name: 'baton_approvals_decided_total',
      help: `Approvals decided, by outcome, how the decision came and ${kind}`,
      labelNames: ['outcome', 'via', 'kind'],
      ...on,
    });
    this.approvalWait = new Histogram({
      name: 'baton_approval_wait_seconds',
      help: `Time from an approval request to its decision, by outcome and ${kind}`,
      labelNames: ['outcome', 'kind'],
      buckets: WAIT_SECONDS,
      ...on,
    });
    this.modelCalls = new Counter({
      name: 'baton_model_calls_total',
      help: "Model call attempts, by agent, model, outcome (ok, error, team_mismatch: refused for a team this worker lacks) and the chain's team version",
      labelNames: ['agent', 'model', 'outcome', 'team'],
      ...on,
    });
    this.modelTokens = new Counter({
      name: 'baton_model_tokens_total',
      help: 'Tokens used by model calls, by agent, model and type (input, output)',
      labelNames: ['agent', 'model', 'type'],
      ...on,
    });
    this.modelSeconds = new Histogram({
      name: 'baton_model_call_seconds',
      help: 'Latency of model call attempts',
      labelNames: ['agent', 'model'],
      buckets: SECONDS,
      ...on,
    });
    this.toolCalls = new Counter({
      name: 'baton_tool_calls_total',
      help: "Tool call attempts, by agent, tool, outcome (ok, refused: the model got an error, error: the call failed, team_mismatch: refused for a team this worker lacks) and the chain's team version",
      labelNames: ['agent', 'tool', 'outcome', 'team'],
      ...on,
    });
    this.teamInfo = new Gauge({
      name: 'baton_team_info',
      help: 'The team versions the workers in this process serve (1 each), with their hash and worker deployment version',
      labelNames: ['team', 'hash', 'deployment'],
      ...on,
    });
    this.teamMismatches = new Counter({
      name: 'baton_team_mismatches_total',
      help: "Steps refused because the chain's team needs what this worker's team lacks, by the chain's team, the worker's team and the step",
      labelNames: ['team', 'worker_team', 'step'],
      ...on,
    });
    this.toolSeconds = new Histogram({
      name: 'baton_tool_call_seconds',
      help: 'Latency of tool call attempts',
      labelNames: ['agent', 'tool'],
      buckets: SECONDS,
      ...on,
    });
    this.loopsDetected = new Counter({
      name: 'baton_loops_detected_total',
      help: 'Handoff loops detected, by the agent handing off, pattern (repeat, oscillation) and whether the handoff was refused',
      labelNames: ['agent', 'pattern', 'refused'],
      ...on,
    });
    const openUntil = this.openUntil;
    this.breakersOpen = new Gauge({
      name: 'baton_circuit_breakers_open',
      help: 'Circuit breakers open now (until their cooldown lets a trial through), by handoff target',
      labelNames: ['target'],
      ...on,
      collect() {
        const now = Date.now();
        this.reset();
        for (const [target, untils] of openUntil) {
          const open = untils.filter((u) => u > now);
          if (open.length > 0) this.set({ target }, open.length);
          if (open.length > 0) openUntil.set(target, open);
          else openUntil.delete(target);
        }
      },
    });
    this.budgetsExceeded = new Counter({
      name: 'baton_budgets_exceeded_total',
      help: 'Budgets used up, by budget (handoffs, turns, tokens, agents, deadline) and the agent working then',
      labelNames: ['budget', 'agent'],
      ...on,
    });
    this.guardrailTrips = new Counter({
      name: 'baton_guardrail_trips_total',
      help: 'Guardrails tripped, by agent, guardrail and stage (input, output)',
      labelNames: ['agent', 'guardrail', 'stage'],
      ...on,
    });
    this.controlEvents = new Counter({
      name: 'baton_control_events_total',
      help: 'What the controls did, by control (loop_detected, target_failed, breaker_opened, breaker_half_open, breaker_closed, breaker_refused, guardrail_tripped, budget_exceeded) and agent',
      labelNames: ['control', 'agent'],
      ...on,
    });
    this.economics = new EconomicsMetrics(registry);
    this.actions = new ActionMetrics(registry);
  }

  /** Count what a workflow activation reported. */
  record(facts: ChainFact[]): void {
    for (const fact of facts) {
      if (fact.kind === 'handoff') this.handoffs.inc(label({ from: fact.from, to: fact.to }));
      else if (fact.kind === 'approval_requested')
        this.approvalsRequested.inc(label({ from: fact.from, to: fact.to, kind: fact.tool ? 'tool' : 'handoff' }));
      else if (fact.kind === 'approval_decided') {
        const kind = fact.tool ? 'tool' : 'handoff';
        this.approvalsDecided.inc({ outcome: fact.outcome, via: fact.via, kind });
        this.approvalWait.observe({ outcome: fact.outcome, kind }, fact.waitedMs / 1000);
      } else if (fact.kind === 'control') this.control(fact.control);
      else if (fact.kind === 'breaker') this.economics.breaker(fact.view);
      else if (fact.kind === 'actions') this.actions.record(fact.counts);
      else this.chains.inc(label({ outcome: fact.outcome, error: fact.errorType ?? '' }));
    }
  }

  /** Count what a control did. */
  private control(c: ControlEvent): void {
    this.controlEvents.inc(label({ control: c.kind, agent: c.kind === 'loop_detected' ? c.from : (c.agent ?? '') }));
    this.economics.control(c);
    switch (c.kind) {
      case 'loop_detected':
        this.loopsDetected.inc(label({ agent: c.from, pattern: c.pattern, refused: String(c.refused) }));
        break;
      case 'breaker_opened': {
        const until = Date.parse(c.until);
        if (!Number.isNaN(until)) this.openUntil.set(c.agent, [...(this.openUntil.get(c.agent) ?? []), until]);
        break;
      }
      case 'breaker_half_open': {
        // The breaker whose cooldown ended first is the one letting its trial through.
        const untils = [...(this.openUntil.get(c.agent) ?? [])].sort((a, b) => a - b);
        untils.shift();
        if (untils.length > 0) this.openUntil.set(c.agent, untils);
        else this.openUntil.delete(c.agent);
        break;
      }
      case 'guardrail_tripped':
        this.guardrailTrips.inc(label({ agent: c.agent, guardrail: c.guardrail, stage: c.stage }));
        break;
      case 'budget_exceeded':
        this.budgetsExceeded.inc(label({ budget: c.budget, agent: c.agent }));
        break;
      default:
        break;
    }
  }

  /** The sink the workflow-side interceptors report to (never called while replaying). */
  sinks(): InjectedSinks<BatonMetricsSinks> & NonNullable<WorkerOptions['sinks']> {
    return { batonMetrics: { record: { fn: (_info, facts) => this.record(facts), callDuringReplay: false } } };
  }

  /** An activity interceptor timing model and tool calls. */
  activityInterceptor(): ActivityInterceptorsFactory {
    return (ctx) => ({ inbound: new MetricsActivityInbound(ctx, this) });
  }
}
