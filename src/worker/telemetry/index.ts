/**
 * A worker's metrics and tracing, resolved from `createWorker`'s options (or the environment) into
 * the pieces Temporal's `Worker.create` takes: activity interceptors, sinks and workflow
 * interceptor modules.
 */
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import type { Registry } from 'prom-client';
import { BatonMetrics, type WorkerMetricsOptions } from './metrics';
import { metricsPortFromEnv, serveMetrics } from './metricsServer';
import { BatonTracing, sandboxModule, tracingOptionsFromEnv, type TracingOptions } from './tracing';

export { BatonMetrics, type WorkerMetricsOptions } from './metrics';
export { serveMetrics } from './metricsServer';
export { BatonTracing, tracingOptionsFromEnv, type TracingOptions } from './tracing';
export type { ChainFact } from '../../../workflows/telemetry/chainFacts';

/** What `createWorker` accepts for telemetry. */
export interface WorkerTelemetryOptions {
  /**
   * Prometheus metrics of the worker's chains, approvals, model and tool calls.
   * @default on, served on `BATON_METRICS_PORT`, when that variable is set; else off
   */
  metrics?: boolean | WorkerMetricsOptions;
  /**
   * OpenTelemetry spans per model turn, tool call and handoff, in the trace of whoever started the chain.
   * @default on, exported over OTLP, when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; else off
   */
  tracing?: boolean | TracingOptions | BatonTracing;
}

/** Telemetry resolved for one worker. */
export interface WorkerTelemetry {
  /** The metrics' registry, when metrics are on. */
  registry?: Registry;
  tracing?: BatonTracing;
  /** Workflow interceptor modules to bundle after `modules`. */
  interceptorModules(modules?: string[]): string[];
  /** `interceptors` and `sinks` for `Worker.create`, merged with the application's own. */
  workerOptions(options?: Partial<WorkerOptions>): Pick<WorkerOptions, 'interceptors' | 'sinks'>;
}

/** Resolve {@link WorkerTelemetryOptions}; serves the metrics port when one is configured. */
export async function workerTelemetry(options: WorkerTelemetryOptions): Promise<WorkerTelemetry> {
  const telemetry = resolveWorkerTelemetry(options);
  await telemetry.serve();
  return telemetry;
}

/** {@link WorkerTelemetry} resolved without serving anything yet: `serve()` opens the metrics port, when one is configured (once). */
export function resolveWorkerTelemetry(options: WorkerTelemetryOptions): WorkerTelemetry & { serve(): Promise<void> } {
  const chosen = chosenMetrics(options.metrics);
  const metrics = chosen ? BatonMetrics.in(chosen.registry) : undefined;
  const tracing = resolveTracing(options.tracing);
  const modules = [...(tracing?.workflowModules() ?? []), ...(metrics ? [sandboxModule('workflowMetrics')] : [])];
  const activity: ActivityInterceptorsFactory[] = [
    ...(tracing?.activityInterceptors() ?? []),
    ...(metrics ? [metrics.activityInterceptor()] : []),
  ];
  const sinks: WorkerOptions['sinks'] = { ...tracing?.sinks(), ...metrics?.sinks() };
  let served: Promise<unknown> | undefined;
  return {
    ...(metrics ? { registry: metrics.registry } : {}),
    ...(tracing ? { tracing } : {}),
    interceptorModules: (own = []) => [...own, ...modules],
    workerOptions: (own = {}) => ({
      interceptors: { ...own.interceptors, activity: [...activity, ...(own.interceptors?.activity ?? [])] },
      sinks: { ...own.sinks, ...sinks },
    }),
    async serve() {
      if (metrics && chosen?.port !== undefined) await (served ??= serveMetrics(metrics.registry, chosen.port));
    },
  };
}

function chosenMetrics(option: WorkerTelemetryOptions['metrics']): WorkerMetricsOptions | undefined {
  const port = metricsPortFromEnv();
  return option === undefined
    ? port !== undefined
      ? { port }
      : undefined
    : option === true
      ? {}
      : option || undefined;
}

/** The tracing the environment configures: one per process, so its workers share one exporter. */
let envTracing: BatonTracing | undefined;

function resolveTracing(option: WorkerTelemetryOptions['tracing']): BatonTracing | undefined {
  if (option instanceof BatonTracing) return option;
  if (option === false) return undefined;
  if (option === undefined || option === true) {
    const env = tracingOptionsFromEnv();
    if (option === undefined && !env) return undefined;
    return (envTracing ??= new BatonTracing(env ?? {}));
  }
  return new BatonTracing(option);
}
