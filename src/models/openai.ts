import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import { ModelRequestError, toApplicationFailure } from '../common/errors';
import type { CallModelInput, ModelResponse, OpenAIModelSpec, ToolCall } from '../common/model';
import { classify, fingerprint, repeatableFailureKey, repeatedFailure, serverAnswer, streamFailure } from './openaiFailures';
import { chatRequest, normalizeToolCalls } from './openaiMessages';
import { asksResponseFormat, outputRequest, refusesResponseFormat, withOutput, type ResponseFormatMode } from './openaiOutput';
import { ChunkAssembly, readChunks } from './openaiStream';
import { estimateTokens, type ModelCallContext, type ModelProvider } from './provider';

export { classify, isRetryableStatus, retryAfterMs } from './openaiFailures';
export type { ResponseFormatMode } from './openaiOutput';

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
}

/**
 * What the provider heartbeats while it calls: a digest of the request, the chunks streamed so
 * far, and how the attempt failed. The next attempt reads it as `previousHeartbeat`.
 * @internal
 */
export interface OpenAICallProgress {
  request: string;
  chunks?: number;
  failure?: string;
}

const STREAM_INTERRUPTED = 'stream-interrupted';
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Where one call goes, and what the provider learnt about that endpoint in this worker.
 * @internal
 */
interface Endpoint {
  client: OpenAI;
  /** The raw body of the latest error answer (the client keeps only its `error` field). */
  errorBody: { text?: string };
  key: string;
  /** Kept out of failures: a server may echo it, and failures are recorded in history. */
  apiKey?: string;
  timeoutMs: number;
}

/**
 * Chat Completions with tools through the `openai` package, for OpenAI and for servers such as
 * llama-cpp-python, vLLM and Ollama. Answers stream by default and each chunk heartbeats. The
 * client's own retries are off: Temporal retries the activity, honouring `Retry-After`, so every
 * attempt is in history; an answer that blames the request fails at once.
 *
 * Structured answers (an agent's `outputType`, `CallModelInput.outputSchema`): the provider cannot
 * know which call will give the final answer, and OpenAI-compatible servers differ on
 * `response_format` beside tools. OpenAI's own API applies it to the final message only, so tools
 * stay callable; vLLM constrains the whole answer, so the model could no longer call a tool (or
 * hand off); llama-cpp-python refuses the `json_schema` type. So by default (`responseFormat:
 * 'auto'`) a request without tools carries `response_format: {type: 'json_schema', json_schema:
 * {name: 'output', schema, strict: false}}`, as does one with tools to OpenAI's own API (and Azure
 * OpenAI); any other request with tools carries the schema as an instruction in its system
 * message. `strict: false` takes any schema zod writes (strict mode needs every property required
 * and no additional properties). A server that refuses `response_format` is asked again at once
 * without it, and not sent it again by this worker. Either way the `callModel` activity checks the
 * answer against the `outputType` and sends a wrong one back.
 */
export class OpenAIProvider implements ModelProvider {
  /** Endpoints (and models) that failed to stream, with or without tools: asked without streaming from then on. */
  readonly #noStreaming = new Set<string>();
  /** Endpoints that refused `stream_options`. */
  readonly #noStreamOptions = new Set<string>();
  /** Endpoints (and models) that refused `response_format`. */
  readonly #noResponseFormat = new Set<string>();

  constructor(private readonly options: OpenAIProviderOptions = {}) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const spec = input.model as OpenAIModelSpec;
    const endpoint = this.endpoint(spec);
    const params = this.request(spec, input, endpoint);
    const progress: OpenAICallProgress = { request: fingerprint(params) };
    const previous = previousProgress(context.previousHeartbeat, progress.request);
    context.heartbeat?.(progress);
    try {
      if (this.streams(spec, endpoint, params, previous)) {
        const streamed = await this.streamed(endpoint, params, context, progress);
        if (streamed) return streamed;
      }
      return await this.single(endpoint, params, context);
    } catch (err) {
      if (asksResponseFormat(params) && this.refusedResponseFormat(err, endpoint, context)) return this.call(input, context);
      throw withoutSecret(this.failure(err, endpoint, context, progress, previous), endpoint.apiKey);
    }
  }

  private request(spec: OpenAIModelSpec, input: CallModelInput, endpoint: Endpoint): ChatCompletionCreateParamsNonStreaming {
    const params = chatRequest(spec, input);
    if (!input.outputSchema) return params;
    const facts = { tools: input.tools.length > 0, baseURL: endpoint.client.baseURL, refused: this.#noResponseFormat.has(endpoint.key) };
    return withOutput(params, input.outputSchema, outputRequest(this.options.responseFormat ?? 'auto', facts));
  }

  /** Whether `err` refuses `response_format`; the endpoint is then asked without it from now on. */
  private refusedResponseFormat(err: unknown, endpoint: Endpoint, context: ModelCallContext): boolean {
    if (context.signal.aborted || !(err instanceof APIError)) return false;
    const { status, message } = serverAnswer(err, endpoint.errorBody.text);
    if (!refusesResponseFormat(status, `${message} ${endpoint.errorBody.text ?? ''}`)) return false;
    this.#noResponseFormat.add(endpoint.key);
    return true;
  }

  private streams(spec: OpenAIModelSpec, endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming, previous?: OpenAICallProgress): boolean {
    if (!(spec.settings?.stream ?? this.options.stream ?? true)) return false;
    // A stream cut off mid-way is asked for again without streaming, in case the server cannot finish one.
    if (previous?.failure === STREAM_INTERRUPTED) return false;
    return !this.#noStreaming.has(endpoint.key) && !(params.tools && this.#noStreaming.has(`${endpoint.key}|tools`));
  }

  private async single(endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming, context: ModelCallContext): Promise<ModelResponse> {
    endpoint.errorBody.text = undefined;
    const completion: ChatCompletion = await endpoint.client.chat.completions.create(params, { signal: context.signal });
    const message = completion.choices?.[0]?.message;
    if (!message) throw ApplicationFailure.retryable('the model answered with no choices', 'ModelEmptyResponse');
    // A refusal is the model's answer: the chain ends with it instead of nudging an "empty" answer.
    const content = message.content || message.refusal || (message.content ?? null);
    const toolCalls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
    const usage = completion.usage ? { inputTokens: completion.usage.prompt_tokens ?? 0, outputTokens: completion.usage.completion_tokens ?? 0 } : undefined;
    return response(params, content, toolCalls, usage, completion.model);
  }

  /** The streamed answer, or `undefined` when the server could not stream it and should be asked without streaming. */
  private async streamed(endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming, context: ModelCallContext, progress: OpenAICallProgress): Promise<ModelResponse | undefined> {
    const controller = new AbortController();
    const abort = () => controller.abort(context.signal.reason);
    if (context.signal.aborted) abort();
    context.signal.addEventListener('abort', abort, { once: true });
    const assembly = new ChunkAssembly();
    let stalled = false;
    let opened = false;
    try {
      const stream = await this.openStream(endpoint, params, controller.signal);
      opened = true;
      await readChunks(
        stream,
        endpoint.timeoutMs,
        (chunk) => {
          assembly.add(chunk);
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
        if (err instanceof APIError && typeof err.status === 'number' && refusesStreaming(err, endpoint.errorBody.text)) return this.cannotStream(endpoint, params);
        throw err;
      }
      // An error event inside the stream is the server's answer; a chunk that is not JSON is a bad
      // answer worth asking again (still streaming); anything else broke the stream.
      if (err instanceof APIError || err instanceof SyntaxError) throw err;
      if (!assembly.received && !stalled) return this.cannotStream(endpoint, params);
      if (!stalled) throw this.interrupted(context, progress, `the model's stream broke off after ${assembly.chunks} chunk(s): ${String(err)}`);
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    // The client ends an aborted stream quietly, so why it ended is read here.
    if (context.signal.aborted) throw context.signal.reason;
    if (stalled) throw streamFailure('ModelStreamStalled', `the model's stream sent nothing for ${endpoint.timeoutMs} ms after ${assembly.chunks} chunk(s)`);
    if (!assembly.finishReason) {
      if (!assembly.received) return this.cannotStream(endpoint, params);
      throw this.interrupted(context, progress, `the model's stream ended after ${assembly.chunks} chunk(s) without a finish reason`);
    }
    return response(params, assembly.content, assembly.toolCalls, assembly.usage, assembly.model);
  }

  private async openStream(endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal): Promise<Stream<ChatCompletionChunk>> {
    const withUsage = !this.#noStreamOptions.has(endpoint.key);
    endpoint.errorBody.text = undefined;
    try {
      return await endpoint.client.chat.completions.create(
        { ...params, stream: true, ...(withUsage ? { stream_options: { include_usage: true } } : {}) },
        { signal },
      );
    } catch (err) {
      const refused = err instanceof APIError && typeof err.status === 'number' && /stream_options/.test(`${err.message} ${endpoint.errorBody.text ?? ''}`);
      if (!withUsage || !refused) throw err;
      this.#noStreamOptions.add(endpoint.key);
      return this.openStream(endpoint, params, signal);
    }
  }

  private cannotStream(endpoint: Endpoint, params: ChatCompletionCreateParamsNonStreaming): undefined {
    this.#noStreaming.add(params.tools ? `${endpoint.key}|tools` : endpoint.key);
    return undefined;
  }

  private interrupted(context: ModelCallContext, progress: OpenAICallProgress, message: string): ApplicationFailure {
    context.heartbeat?.({ request: progress.request, failure: STREAM_INTERRUPTED });
    return streamFailure('ModelStreamInterrupted', message);
  }

  private failure(err: unknown, endpoint: Endpoint, context: ModelCallContext, progress: OpenAICallProgress, previous?: OpenAICallProgress): unknown {
    if (context.signal.aborted) return context.signal.reason ?? err;
    const body = endpoint.errorBody.text;
    const failure = classify(err, body);
    const key = failure instanceof ApplicationFailure && !failure.nonRetryable ? repeatableFailureKey(err, body) : undefined;
    if (!key) return failure;
    if (previous?.failure === key) return repeatedFailure(err as APIError, body);
    context.heartbeat?.({ request: progress.request, failure: key });
    return failure;
  }

  private endpoint(spec: OpenAIModelSpec): Endpoint {
    const baseURL = spec.settings?.baseURL ?? this.options.baseURL ?? process.env.OPENAI_BASE_URL;
    const apiKey = this.options.apiKey ?? process.env.OPENAI_API_KEY;
    if (!apiKey && !baseURL) {
      throw toApplicationFailure(new ModelRequestError('OPENAI_API_KEY is not set in the worker (set it, or OPENAI_BASE_URL for a local server)'));
    }
    const timeoutMs = spec.settings?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const errorBody: Endpoint['errorBody'] = {};
    const client = new OpenAI({
      // Local OpenAI-compatible servers often need no key; the client insists on one.
      apiKey: apiKey ?? 'unused',
      baseURL,
      maxRetries: 0,
      timeout: timeoutMs,
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (!res.ok) errorBody.text = await res.clone().text().catch(() => undefined);
        return res;
      },
    });
    return { client, errorBody, key: `${client.baseURL}|${spec.model}`, timeoutMs, ...(apiKey ? { apiKey } : {}) };
  }
}

/** `err` with every occurrence of `secret` in its message and stack replaced: what reaches history. */
function withoutSecret(err: unknown, secret: string | undefined): unknown {
  if (!secret || !(err instanceof Error)) return err;
  const hide = (text: string) => text.split(secret).join('[API key]');
  err.message = hide(err.message);
  if (err.stack) err.stack = hide(err.stack);
  return err;
}

/** The previous attempt's progress, when it was for this same request. */
function previousProgress(details: unknown, request: string): OpenAICallProgress | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const p = details as Partial<OpenAICallProgress>;
  return p.request === request ? (p as OpenAICallProgress) : undefined;
}

/** A server answer that says it cannot stream this request (llama-cpp-python: "Automatic streaming tool choice is not supported"). */
function refusesStreaming(err: APIError, body?: string): boolean {
  const { message } = serverAnswer(err, body);
  return /stream/i.test(message) && /not supported|unsupported|not implemented|cannot|can't/i.test(message);
}

function response(
  params: ChatCompletionCreateParamsNonStreaming,
  content: string | null,
  calls: ToolCall[],
  usage: ModelResponse['usage'] | undefined,
  model: string | undefined,
): ModelResponse {
  const toolCalls = normalizeToolCalls(calls);
  return { content, toolCalls, usage: usage ?? estimatedUsage(params, content, toolCalls), model: model || params.model };
}

/** Usage for servers that report none, from the lengths of what was sent and received. */
function estimatedUsage(params: ChatCompletionCreateParamsNonStreaming, content: string | null, toolCalls: ToolCall[]): ModelResponse['usage'] {
  const sent = JSON.stringify(params.messages) + (params.tools ? JSON.stringify(params.tools) : '');
  const received = (content ?? '') + toolCalls.map((c) => c.name + c.arguments).join('');
  return { inputTokens: estimateTokens(sent), outputTokens: estimateTokens(received) };
}
