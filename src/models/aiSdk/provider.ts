import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import { ModelRequestError, toApplicationFailure, UserError } from '../../common/errors';
import type { CallModelInput, ModelResponse } from '../../common/model';
import { DEFAULT_TIMEOUT_MS } from '../openaiEndpoint';
import { fingerprint } from '../openaiFailures';
import type { ModelCallContext, ModelProvider } from '../provider';
import { AnswerAssembly } from './answer';
import { aiSdkFailure } from './failures';
import { callOptions } from './prompt';
import type { AiSdkModelSpec } from './spec';

/** What the AI SDK provider is given. */
export interface AiSdkProviderOptions {
  /**
   * AI SDK models by the name specs give them (`aiSdk('fast')`, `model('ai-sdk', 'fast')`).
   * Models given to `aiSdk(model)` on the team's agents are found without being listed here.
   * @example { fast: ollama('llama3.2'), careful: anthropic('claude-sonnet-4-5') }
   */
  models?: Record<string, LanguageModelV3>;
  /** Stream answers, unless a model's `settings.stream` says otherwise. @default true */
  stream?: boolean;
}

/**
 * What the provider heartbeats while it calls: a digest of the request and the stream parts read so far.
 * @internal
 */
export interface AiSdkCallProgress {
  request: string;
  parts?: number;
}

/**
 * Any AI SDK `LanguageModelV3` as a baton model provider, inside the `callModel` activity: the
 * conversation and the agent's tools (the handoff tool among them) go to the model as an AI SDK
 * call; text streams to the chain's followers as it forms, each stream part heartbeats, tool calls
 * come back with their arguments as written, usage as the provider reports it (estimated when it
 * reports none). The model's own retries are not used: a failed call is judged like the OpenAI
 * provider's (408, 409, 429 and 5xx retried by Temporal, honouring `Retry-After`; other answers,
 * missing keys and unsupported requests fail at once as `ModelRequestError`), so every attempt is in
 * history. Cancelling the activity aborts the call.
 */
export class AiSdkProvider implements ModelProvider {
  /** The models this provider calls, by name. */
  readonly models: ReadonlyMap<string, LanguageModelV3>;

  constructor(private readonly options: AiSdkProviderOptions = {}) {
    const models = new Map<string, LanguageModelV3>();
    for (const [name, model] of Object.entries(options.models ?? {})) models.set(name, checkedModel(name, model));
    this.models = models;
  }

  /** This provider with `models` added; a name already taken by another model object is refused. */
  withModels(models: ReadonlyMap<string, LanguageModelV3>): AiSdkProvider {
    const merged: Record<string, LanguageModelV3> = Object.fromEntries(this.models);
    for (const [name, model] of models) {
      const known = merged[name];
      if (known && known !== model)
        throw new UserError(
          `two different AI SDK models are named "${name}"; give one another name: aiSdk(model, { name })`,
        );
      merged[name] = model;
    }
    return new AiSdkProvider({ ...this.options, models: merged });
  }

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const spec = input.model as AiSdkModelSpec;
    const model = this.models.get(spec.model);
    if (!model) {
      const known = [...this.models.keys()].join(', ') || 'none';
      throw toApplicationFailure(
        new ModelRequestError(
          `this worker has no AI SDK model named "${spec.model}" (it has ${known}); put aiSdk(model) on the agent, or register it: new AiSdkProvider({ models: { "${spec.model}": model } })`,
        ),
      );
    }
    const options = callOptions(input, spec.settings);
    const progress: AiSdkCallProgress = { request: fingerprint(options) };
    context.heartbeat?.(progress);
    const call = new ModelCall(context, spec.settings?.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const assembly = new AnswerAssembly();
      if (spec.settings?.stream ?? this.options.stream ?? true) {
        const { stream } = await call.bounded(model.doStream({ ...options, abortSignal: call.signal }));
        await call.read(stream, (part) => {
          assembly.add(part, context.text);
          context.heartbeat?.({ ...progress, parts: assembly.parts });
        });
      } else {
        const result = await call.bounded(model.doGenerate({ ...options, abortSignal: call.signal }));
        assembly.addContent(result.content);
        assembly.finishReason = result.finishReason;
        assembly.usage = result.usage;
        assembly.modelId = result.response?.modelId;
      }
      return assembly.response(options, model.modelId);
    } catch (err) {
      throw call.failure(err);
    } finally {
      call.end();
    }
  }
}

/**
 * One call's abort signal and idle timer: cancelling the activity, or `timeoutMs` without a word
 * from the model, aborts the model's request.
 */
class ModelCall {
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idle = false;
  readonly #abort = () => this.#controller.abort(this.context.signal.reason);

  constructor(
    private readonly context: ModelCallContext,
    private readonly timeoutMs: number,
  ) {
    if (context.signal.aborted) this.#abort();
    context.signal.addEventListener('abort', this.#abort, { once: true });
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** `promise`, or the abort of the call when the model stays silent too long or the call is cancelled. */
  bounded<T>(promise: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.#controller.signal.reason);
      if (this.#controller.signal.aborted) return onAbort();
      this.#controller.signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve(promise)
        .then(resolve, reject)
        .finally(() => this.#controller.signal.removeEventListener('abort', onAbort));
    });
  }

  /** Read `stream` part by part, the idle timer restarting at each. */
  async read(
    stream: ReadableStream<LanguageModelV3StreamPart>,
    onPart: (part: LanguageModelV3StreamPart) => void,
  ): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        this.#arm();
        const next = await this.bounded(reader.read());
        if (next.done) return;
        onPart(next.value);
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  /** What to throw for `err`: the cancellation, a retryable timeout, or the failure the error means. */
  failure(err: unknown): unknown {
    if (this.context.signal.aborted) return this.context.signal.reason ?? err;
    if (this.#idle)
      return ApplicationFailure.retryable(`the model sent nothing for ${this.timeoutMs} ms`, 'ModelTimeout');
    return aiSdkFailure(err);
  }

  end(): void {
    clearTimeout(this.#timer);
    this.context.signal.removeEventListener('abort', this.#abort);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#idle = true;
      this.#controller.abort(new Error('timed out'));
    }, this.timeoutMs);
  }
}

function checkedModel(name: string, model: unknown): LanguageModelV3 {
  const m = model as Partial<LanguageModelV3> | undefined;
  if (typeof m !== 'object' || m === null || typeof m.doStream !== 'function') {
    throw new UserError(
      `AI SDK model "${name}" must be a LanguageModelV3 object (e.g. anthropic('claude-sonnet-4-5')), got ${typeof model === 'string' ? JSON.stringify(model) : typeof model}`,
    );
  }
  if (m.specificationVersion !== 'v3') {
    throw new UserError(
      `AI SDK model "${name}" implements specification ${String(m.specificationVersion)}; baton takes LanguageModelV3 models (AI SDK 6 providers: @ai-sdk/* 3.x and later)`,
    );
  }
  return m as LanguageModelV3;
}
