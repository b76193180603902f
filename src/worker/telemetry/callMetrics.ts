/**
 * The activity interceptor of a worker's metrics: model calls, their tokens and latency by agent
 * and model, tool calls and their latency by agent and tool, steps refused for a team this worker
 * lacks, and each activity attempt as an action; with the label values as a scrape shows them.
 */
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { Counter, Histogram } from 'prom-client';
import { displayText } from '../../common/display';
import { ActivityType } from '../../common/messages';
import type { CallModelInput, LocalModelCall, ModelResponse } from '../../common/model';
import type { RunToolInput, RunToolResult } from '../../common/team';
import type { ActionMetrics } from './actionMetrics';
import type { EconomicsMetrics } from './economicsMetrics';

/** The metric families the interceptor counts in (`BatonMetrics` has them). */
export interface CallMetricFamilies {
  readonly modelCalls: Counter<'agent' | 'model' | 'outcome' | 'team'>;
  readonly modelTokens: Counter<'agent' | 'model' | 'type'>;
  readonly modelSeconds: Histogram<'agent' | 'model'>;
  readonly toolCalls: Counter<'agent' | 'tool' | 'outcome' | 'team'>;
  readonly toolSeconds: Histogram<'agent' | 'tool'>;
  readonly teamMismatches: Counter<'team' | 'worker_team' | 'step'>;
  readonly economics: EconomicsMetrics;
  readonly actions: ActionMetrics;
}

/** Counts and times each model and tool call attempt, and counts the steps refused for a team this worker lacks. */
export class MetricsActivityInbound implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly metrics: CallMetricFamilies,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    // All the local activities of a workflow task are one action, which the workflow counts.
    if (!this.ctx.info.isLocal) this.metrics.actions.one('activity_attempt');
    const model = type === ActivityType.CALL_MODEL || type === ActivityType.CALL_MODEL_LOCAL;
    if (!model && type !== ActivityType.RUN_TOOL) return this.countingMismatches(type, () => next(input));
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    if (model) {
      const call = input.args[0] as CallModelInput;
      const labels = label({ agent: call.agentId, model: call.model.model });
      const team = displayText(call.team?.version ?? '');
      try {
        const result = await next(input);
        // A local model call answers with its input beside the response.
        const response =
          type === ActivityType.CALL_MODEL_LOCAL ? (result as LocalModelCall).response : (result as ModelResponse);
        this.metrics.modelCalls.inc({ ...labels, outcome: 'ok', team });
        this.metrics.modelTokens.inc({ ...labels, type: 'input' }, response.usage?.inputTokens ?? 0);
        this.metrics.modelTokens.inc({ ...labels, type: 'output' }, response.usage?.outputTokens ?? 0);
        this.metrics.economics.modelCall(call, response);
        return result;
      } catch (err) {
        this.metrics.modelCalls.inc({ ...labels, outcome: this.mismatch(type, err) ? 'team_mismatch' : 'error', team });
        throw err;
      } finally {
        this.metrics.modelSeconds.observe(labels, seconds());
      }
    }
    const call = input.args[0] as RunToolInput;
    const labels = label({ agent: call.agentId, tool: call.call.name });
    const team = displayText(call.team?.version ?? '');
    try {
      const result = (await next(input)) as RunToolResult;
      this.metrics.toolCalls.inc({ ...labels, outcome: result.ok ? 'ok' : 'refused', team });
      return result;
    } catch (err) {
      this.metrics.toolCalls.inc({ ...labels, outcome: this.mismatch(type, err) ? 'team_mismatch' : 'error', team });
      throw err;
    } finally {
      this.metrics.toolSeconds.observe(labels, seconds());
    }
  }

  /** Run an activity other than a model or tool call, counting a refusal for a team this worker lacks. */
  private async countingMismatches(type: string, run: () => Promise<unknown>): Promise<unknown> {
    try {
      return await run();
    } catch (err) {
      this.mismatch(type, err);
      throw err;
    }
  }

  /** Whether `err` refused the step for a team this worker lacks; counted when it did. */
  private mismatch(step: string, err: unknown): boolean {
    if (!(err instanceof ApplicationFailure) || err.type !== 'TeamMismatchError') return false;
    const d = (err.details?.[0] ?? {}) as { version?: string; worker?: string };
    this.metrics.teamMismatches.inc(label({ team: d.version ?? '', worker_team: d.worker ?? '', step }));
    return true;
  }
}

/** Label values as a scrape shows them: names that came with a chain (agents, tools, models, guardrails) neutralised like any text from outside. */
export function label<L extends Record<string, string>>(labels: L): L {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, displayText(v)])) as L;
}
