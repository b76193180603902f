import { APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { CallModelInput, ModelResponse, OpenAIModelSpec } from '../common/model';
import {
  attemptFailure,
  cutTooOften,
  interruptedFailure,
  type OpenAICallProgress,
  previousProgress,
  slowFailure,
} from './openaiAttempts';
import { defaultMaxTokens, type Endpoint, openEndpoint, withoutSecret } from './openaiEndpoint';
import { fingerprint, serverAnswer } from './openaiFailures';
import { chatRequest, fromCompletion, response } from './openaiMessages';
import {
  askedMode,
  nextMode,
  outputRequest,
  refusesResponseFormat,
  withOutput,
  type ResponseFormatMode,
  type StructuredMode,
} from './openaiOutput';
import { ChunkAssembly, readChunks, type StreamAnswer, streamOrWhole } from './openaiStream';
import type { ModelCallContext, ModelProvider } from './provider';

export { classify, isRetryableStatus, retryAfterMs } from './openaiFailures';
export { DEFAULT_LOCAL_MAX_TOKENS, DEFAULT_TIMEOUT_MS } from './openaiEndpoint';
export type { ResponseFormatMode, StructuredMode } from './openaiOutput';

/** Where the OpenAI provider finds its endpoint and key, whether it streams, and how it asks for structured answers. */
export interface OpenAIProviderOptions {
  /** @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** @default process.env.OPENAI_BASE_URL, then OpenAI's own */
  baseURL?: string;
  /** Stream answers, unless a model's `settings.stream` says otherwise. @default true */
  stream?: boolean;
  /**
   * When to send `response_format` for an agent with an `outputType` (see {@link ResponseFormatMode});
   * a request without it carries the output's JSON Schema in its system message.
   * @default 'auto'
   */
  responseFormat?: ResponseFormatMode;
  /**
   * `max_tokens` of requests whose model's settings give no `maxTokens`; `false` sends none.
   * @default 2048 to servers other than OpenAI's own API (llama-cpp-python, vLLM, Ollama, …), none to OpenAI's
   */
  maxTokens?: number | false;
}

/**
 * Chat Completions with tools through the `openai` package, for OpenAI and for servers such as
 * llama-cpp-python, vLLM and Ollama. Answers stream by default and each chunk heartbeats. The
 * client's own retries are off: Temporal retries the activity, honouring `Retry-After`, so every
 * attempt is in history; an answer that blames the request fails at once.
 *
 * Slow servers: `timeoutMs` bounds the wait for an answer to start and each gap between chunks
 * (not streamed: the whole answer); a request that times out is aborted, so the server can stop,
 * and sent again once after a pause; a second timeout in a row fails the call, saying the server is
 * slow (it accepts connections) rather than unreachable. A server that ignores `stream: true` and
 * answers with the whole completion has that answer used; a stream cut off is asked for again as a
 * stream (after two cuts in a row of one request, once without streaming).
 *
 * Structured answers (an agent's `outputType`, `CallModelInput.outputSchema`): the provider cannot
 * know which call will give the final answer, and OpenAI-compatible servers differ on
 * `response_format` beside tools. OpenAI's own API applies it to the final message only, so tools
 * stay callable; vLLM constrains the whole answer, so the model could no longer call a tool (or
 * hand off). So by default (`responseFormat: 'auto'`) a request without tools carries a
 * `response_format`, as does one with tools to OpenAI's own API (and Azure OpenAI); any other
 * request with tools carries the schema as an instruction in its system message. A server that
 * refuses a format is asked again at once with the next it may offer (see `STRUCTURED_MODES`:
 * `json_schema`, llama-cpp-python's `json_object` with a `schema`, plain `json_object`, then the
 * instruction alone), and this worker remembers what that endpoint took. Either way the `callModel`
 * activity checks the answer against the `outputType` and sends a wrong one back.
 */
export class OpenAIProvider implements ModelProvider {
  /** Endpoints (and models) that failed to stream, with or without tools: asked without streaming from then on. */
  readonly #noStreaming = new Set<string>();
  /** Endpoints that refused `stream_options`. */
  readonly #noStreamOptions = new Set<string>();
  /** Endpoints (and models) that refused a `response_format`: the most binding one they may still offer. */
  readonly #offered = new Map<string, StructuredMode>();

  constructor(private readonly options: OpenAIProviderOptions = {}) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const spec = input.model as OpenAIModelSpec;
    const endpoint = openEndpoint(spec, this.options);
    const params = this.request(input, endpoint);
    const progress: OpenAICallProgress = { request: fingerprint(params) };
    const previous = previousProgress(context.previousHeartbeat, progress.request);
    context.heartbeat?.(progress);
    try {
      if (this.streams(spec, endpoint, params, previous)) {
        const streamed = await this.streamed(endpoint, params, context, progress, previous);
        if (streamed) return streamed;
      }
      return await this.single(endpoint, params, context);
    } catch (err) {
      if (this.refusedResponseFormat(err, params, endpoint, context)) return this.call(input, context);
      throw withoutSecret(await attemptFailure(err, endpoint, context, progress, previous), endpoint.apiKey);
    }
  }

  private request(input: CallModelInput, endpoint: Endpoint): ChatCompletionCreateParamsNonStreaming {
    const params = chatRequest(input.model as OpenAIModelSpec, input);
    const maxTokens = defaultMaxTokens(endpoint.client.baseURL, this.options.maxTokens);
    if (params.max_tokens === undefined && maxTokens !== undefined) params.max_tokens = maxTokens;
    if (!input.outputSchema) return params;
    const facts = {
      tools: input.tools.length > 0,
      baseURL: endpoint.client.baseURL,
      offered: this.#offered.get(endpoint.key),
    };
    return withOutput(params, input.outputSchema, outputRequest(this.options.responseFormat ?? 'auto', facts));
  }

  /** Whether `err` refuses the `response_format` of `params`; the endpoint is then asked the next way from now on. */
  private refusedResponseFormat(
    err: unknown,
    params: ChatCompletionCreateParamsNonStreaming,
    endpoint: Endpoint,
    context: ModelCallContext,
  ): boolean {
    const asked = askedMode(params);
    if (!asked || context.signal.aborted || !(err instanceof APIError)) return false;
    const { status, message } = serverAnswer(err, endpoint.errorBody.text);
    if (!refusesResponseFormat(status, `${message} ${endpoint.errorBody.text ?? ''}`)) return false;
    this.#offered.set(endpoint.key, nextMode(asked));
    return true;
  }

  private streams(
    spec: OpenAIModelSpec,
    endpoint: Endpoint,
    params: ChatCompletionCreateParamsNonStreaming,
    previous?: OpenAICallProgress,
  ): boolean {
    if (!(spec.settings?.stream ?? this.options.stream ?? true)) return false;
    // A request whose stream keeps breaking off is asked once without streaming, in case the server cannot finish one.
    if (cutTooOften(previous)) return false;
    return !this.#noStreaming.has(endpoint.key) && !(params.tools && this.#noStreaming.has(`${endpoint.key}|tools`));
  }

  private async single(
    endpoint: Endpoint,
    params: ChatCompletionCreateParamsNonStreaming,
    context: ModelCallContext,
  ): Promise<ModelResponse> {
    endpoint.errorBody.text = undefined;
    return fromCompletion(params, await endpoint.client.chat.completions.create(params, { signal: context.signal }));
  }

  /** The streamed answer, or `undefined` when the server could not stream it and should be asked without streaming. */
  private async streamed(
    endpoint: Endpoint,
    params: ChatCompletionCreateParamsNonStreaming,
    context: ModelCallContext,
    progress: OpenAICallProgress,
    previous?: OpenAICallProgress,
  ): Promise<ModelResponse | undefined> {
    const controller = new AbortController();
    const abort = () => controller.abort(context.signal.reason);
    if (context.signal.aborted) abort();
    context.signal.addEventListener('abort', abort, { once: true });
    const assembly = new ChunkAssembly();
    let stalled = false;
    let opened = false;
    try {
      const answer = await this.openStream(endpoint, params, controller);
      // A server that ignored `stream: true` answered in full: that answer is the model's.
      if (answer.whole) return fromCompletion(params, answer.whole);
      opened = true;
      await readChunks(
        answer.stream,
        endpoint.timeoutMs,
        (chunk) => {
          assembly.add(chunk);
          const piece = chunk.choices?.[0]?.delta?.content;
          if (typeof piece === 'string' && piece !== '') context.text?.(piece);
          context.heartbeat?.({ ...progress, chunks: assembly.chunks });
        },
        () => {
          stalled = true;
          controller.abort();
        },
      );
    } catch (err) {
      if (context.signal.aborted) throw context.signal.reason;
      if (!opened) {
        if (err instanceof APIError && typeof err.status === 'number' && refusesStreaming(err, endpoint.errorBody.text))
          return this.cannotStream(endpoint, params);
        throw err;
      }
      // An error event inside the stream is the server's answer; a chunk that is not JSON is a bad
      // answer worth asking again (still streaming); anything else broke the stream, which is asked for again.
      if (err instanceof APIError || err instanceof SyntaxError) throw err;
      if (!stalled)
        throw interruptedFailure(
          context,
          progress,
          previous,
          `the model's stream broke off after ${assembly.chunks} chunk(s): ${String(err)}`,
        );
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    // The client ends an aborted stream quietly, so why it ended is read here.
    if (context.signal.aborted) throw context.signal.reason;
    if (stalled)
      throw slowFailure(
        endpoint,
        context,
        progress,
        previous,
        'ModelStreamStalled',
        `the model's stream sent nothing for ${endpoint.timeoutMs} ms after ${assembly.chunks} chunk(s)`,
      );
    if (!assembly.finishReason) {
      // A stream that ended in good order with nothing in it: this server cannot stream such a request.
      if (!assembly.received) return this.cannotStream(endpoint, params);
      throw interruptedFailure(
        context,
        progress,
        previous,
        `the model's stream ended after ${assembly.chunks} chunk(s) without a finish reason`,
      );
    }
    return response(params, assembly.content, assembly.toolCalls, assembly.usage, assembly.model);
  }

  private async openStream(
    endpoint: Endpoint,
    params: ChatCompletionCreateParamsNonStreaming,
    controller: AbortController,
  ): Promise<StreamAnswer> {
    const withUsage = !this.#noStreamOptions.has(endpoint.key);
    endpoint.errorBody.text = undefined;
    let answer: Response;
    try {
      answer = await endpoint.client.chat.completions
        .create(
          { ...params, stream: true, ...(withUsage ? { stream_options: { include_usage: true } } : {}) },
          { signal: controller.signal },
        )
        .asResponse();
    } catch (err) {
      const refused =
        err instanceof APIError &&
        typeof err.status === 'number' &&
        /stream_options/.test(`${err.message} ${endpoint.errorBody.text ?? ''}`);
      if (!withUsage || !refused) throw err;
      this.#noStreamOptions.add(endpoint.key);
      return this.openStream(endpoint, params, controller);
    }
    return streamOrWhole(answer, controller);
  }

  private cannotStream(endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming): undefined {
    this.#noStreaming.add(params.tools ? `${endpoint.key}|tools` : endpoint.key);
    return undefined;
  }
}

/** A server answer that says it cannot stream this request (llama-cpp-python: "Automatic streaming tool choice is not supported"). */
function refusesStreaming(err: APIError, body?: string): boolean {
  const { message } = serverAnswer(err, body);
  return /stream/i.test(message) && /not supported|unsupported|not implemented|cannot|can't/i.test(message);
}
