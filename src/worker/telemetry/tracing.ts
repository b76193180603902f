/**
 * OpenTelemetry tracing through Temporal's interceptors (`@temporalio/interceptors-opentelemetry`):
 * one trace from the request that starts a chain through the workflow and its activities, with a
 * span per model turn (`chat <model>`), tool call (`execute_tool <tool>`) and handoff
 * (`handoff <from> → <to>`). Off unless configured.
 */
import { context, propagation, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Context } from '@temporalio/activity';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
  WorkerOptions,
} from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { ActivityType } from '../../common/messages';
import type { CallModelInput, LocalModelCall, ModelResponse } from '../../common/model';
import type { RunToolInput, RunToolResult } from '../../common/team';

/** Options of {@link BatonTracing}. */
export interface TracingOptions {
  /**
   * Where finished spans go, e.g. `new BatchSpanProcessor(new OTLPTraceExporter())`.
   * @default OTLP over HTTP, configured by the `OTEL_EXPORTER_OTLP_*` variables
   */
  spanProcessor?: SpanProcessor;
  /** The `service.name` of the spans. @default `OTEL_SERVICE_NAME`, else "baton" */
  serviceName?: string;
}

/**
 * One process's tracing: a tracer provider with its span processor, and the Temporal interceptors
 * that carry the trace from a client through workflows and activities. Share one between the
 * service and the workers of a process.
 * @example
 * const tracing = new BatonTracing({ spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()) });
 * const worker = await createWorker({ team, tracing });
 * const client = new Client({ connection, interceptors: tracing.clientInterceptors() });
 */
export class BatonTracing {
  readonly tracer: Tracer;
  private readonly provider: BasicTracerProvider;
  private readonly processor: SpanProcessor;
  private readonly resource: Resource;

  constructor(options: TracingOptions = {}) {
    this.resource = new Resource({ 'service.name': options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? 'baton' });
    this.processor = options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter());
    this.provider = new BasicTracerProvider({ resource: this.resource, spanProcessors: [this.processor] });
    this.tracer = this.provider.getTracer('baton');
    installPropagation();
  }

  /** Interceptors for a Temporal `Client`: its workflow starts, signals, updates and queries join the caller's trace. */
  clientInterceptors(): { workflow: WorkflowClientInterceptor[] } {
    return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: this.tracer })] };
  }

  /** Activity interceptors: Temporal's `RunActivity` span, and inside it baton's model-turn and tool-call spans. */
  activityInterceptors(): ActivityInterceptorsFactory[] {
    const tracer = this.tracer;
    return [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
      (ctx) => ({ inbound: new CallSpans(ctx, tracer) }),
    ];
  }

  /**
   * The sink through which spans made in the workflow sandbox are exported (not while replaying).
   * Temporal's exporter copies the workflow's info onto each span as attributes; only its plain
   * values go (ids, type, task queue, attempt), never its memo, which holds what waits for
   * approval with its arguments, or its search attributes.
   */
  sinks(): NonNullable<WorkerOptions['sinks']> {
    const exporter = makeWorkflowExporter(this.processor, this.resource);
    const fn = exporter.export.fn;
    return {
      exporter: {
        export: {
          ...exporter.export,
          fn: (info: WorkflowInfo, spans: Parameters<typeof fn>[1]) => fn(plainInfo(info), spans),
        },
      },
    };
  }

  /** Workflow interceptor modules, in order: Temporal's spans, then baton's handoff spans. */
  workflowModules(): string[] {
    return [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
      sandboxModule('workflowTracing'),
    ];
  }

  /** Export what is buffered. */
  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /** Export what is buffered and stop. */
  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** The workflow info's plain values: what a span attribute may hold, and nothing of the memo. */
function plainInfo(info: WorkflowInfo): WorkflowInfo {
  return Object.fromEntries(
    Object.entries(info).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
  ) as unknown as WorkflowInfo;
}

/** Tracing as the environment configures it: on when an OTLP endpoint is set (and `OTEL_TRACES_EXPORTER` is not `none`). */
export function tracingOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingOptions | undefined {
  if (env.OTEL_TRACES_EXPORTER === 'none' || env.OTEL_SDK_DISABLED === 'true') return undefined;
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? {} : undefined;
}

/**
 * A telemetry module that runs in the workflow sandbox (`workflows/telemetry/`): compiled JavaScript
 * in the package, TypeScript in baton's checkout.
 */
export function sandboxModule(name: string): string {
  for (const ext of ['.js', '.ts']) {
    try {
      return require.resolve(`../../../workflows/telemetry/${name}${ext}`);
    } catch {
      // Not this extension.
    }
  }
  throw new Error(`baton's workflow interceptor module workflows/telemetry/${name} is missing beside ${__filename}`);
}

/**
 * Context that follows `await` (so spans nest) and W3C trace context in Temporal headers (so the
 * trace crosses processes); an application that set up OpenTelemetry itself keeps its own.
 */
function installPropagation(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** A span per model turn and per tool call, with the agent, model, tool and tokens. */
class CallSpans implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly tracer: Tracer,
  ) {}

  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    const attempt = this.ctx.info.attempt;
    if (type === ActivityType.CALL_MODEL || type === ActivityType.CALL_MODEL_LOCAL) {
      const call = input.args[0] as CallModelInput;
      const attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.agent.name': call.agentId,
        'gen_ai.request.model': call.model.model,
        'gen_ai.provider.name': call.model.provider,
        'baton.attempt': attempt,
      };
      return this.span(`chat ${call.model.model}`, attributes, async (span) => {
        const result = await next(input);
        // A local model call answers with its input beside the response.
        const response =
          type === ActivityType.CALL_MODEL_LOCAL ? (result as LocalModelCall).response : (result as ModelResponse);
        span.setAttributes({
          'gen_ai.response.model': response.model,
          'gen_ai.usage.input_tokens': response.usage?.inputTokens ?? 0,
          'gen_ai.usage.output_tokens': response.usage?.outputTokens ?? 0,
          'baton.tool_calls': response.toolCalls.map((c) => c.name),
        });
        return result;
      });
    }
    if (type === ActivityType.RUN_TOOL) {
      const call = input.args[0] as RunToolInput;
      const attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.agent.name': call.agentId,
        'gen_ai.tool.name': call.call.name,
        'gen_ai.tool.call.id': call.call.id,
        'baton.attempt': attempt,
      };
      return this.span(`execute_tool ${call.call.name}`, attributes, async (span) => {
        const result = (await next(input)) as RunToolResult;
        span.setAttribute('baton.tool.ok', result.ok);
        return result;
      });
    }
    return next(input);
  }

  private span<T>(
    name: string,
    attributes: Record<string, string | number>,
    fn: (span: Span) => Promise<T>,
  ): Promise<T> {
    return this.tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    });
  }
}
