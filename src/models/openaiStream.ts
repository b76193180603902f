/**
 * A streamed Chat Completions answer put back together: text deltas appended, tool-call deltas
 * merged by index, usage from the final chunk when the server sends one.
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';
import type { ModelResponse, ToolCall } from '../common/model';
import { usageOf } from './openaiMessages';

/**
 * What came back to a request for a stream: events, or (from a server that ignores `stream: true`) the whole completion.
 * @internal
 */
export type StreamAnswer =
  { stream: AsyncIterable<ChatCompletionChunk>; whole?: undefined } | { whole: ChatCompletion; stream?: undefined };

/**
 * Read the answer to a streamed request: Server-Sent Events as chunks; a JSON completion (a server
 * that ignored `stream: true`) as the answer it is, rather than an empty stream to ask again for.
 */
export async function streamOrWhole(response: Response, controller: AbortController): Promise<StreamAnswer> {
  if (/event-stream/i.test(response.headers.get('content-type') ?? ''))
    return { stream: Stream.fromSSEResponse<ChatCompletionChunk>(response, controller) };
  const text = await response.text();
  const whole = completionIn(text);
  if (whole) return { whole };
  // Events sent without their content type.
  return {
    stream: Stream.fromSSEResponse<ChatCompletionChunk>(
      new Response(text, { status: response.status, headers: response.headers }),
      controller,
    ),
  };
}

function completionIn(text: string): ChatCompletion | undefined {
  try {
    const value = JSON.parse(text) as Partial<ChatCompletion> | null;
    return value !== null && typeof value === 'object' && Array.isArray(value.choices)
      ? (value as ChatCompletion)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Collects the chunks of one streamed answer. */
export class ChunkAssembly {
  /** Chunks received. */
  chunks = 0;
  /** Whether any chunk carried a choice (text, a tool call or a finish reason). */
  received = false;
  /** Why the model stopped; a stream that ends without one was cut off. */
  finishReason: string | undefined;
  usage: ModelResponse['usage'] | undefined;
  model: string | undefined;
  #content = '';
  #refusal = '';
  readonly #calls: ToolCall[] = [];
  readonly #byIndex = new Map<number, ToolCall>();

  add(chunk: ChatCompletionChunk): void {
    this.chunks += 1;
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    this.received = true;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') this.#content += delta.content;
    if (typeof delta.refusal === 'string') this.#refusal += delta.refusal;
    for (const d of delta.tool_calls ?? []) this.#addToolCall(d);
  }

  /** The text (a refusal when the model sent only that), or `null` when the model sent none. */
  get content(): string | null {
    return this.#content || this.#refusal || null;
  }

  get toolCalls(): ToolCall[] {
    return this.#calls.map((c) => ({ ...c }));
  }

  #addToolCall(d: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const call = this.#callFor(d);
    if (d.id && !call.id) call.id = d.id;
    const name = d.function?.name;
    // Names come whole; a server that repeats one in every delta must not double it.
    if (name && name !== call.name) call.name += name;
    if (d.function?.arguments) call.arguments += d.function.arguments;
  }

  #callFor(d: ChatCompletionChunk.Choice.Delta.ToolCall): ToolCall {
    // Some servers (older Ollama) send no index: a new id starts a new call, no id continues the last.
    const last = this.#calls.at(-1);
    if (typeof d.index !== 'number') {
      if (last && (!d.id || d.id === last.id)) return last;
      return this.#newCall();
    }
    const known = this.#byIndex.get(d.index);
    if (known) return known;
    const call = this.#newCall();
    this.#byIndex.set(d.index, call);
    return call;
  }

  #newCall(): ToolCall {
    const call: ToolCall = { id: '', name: '', arguments: '' };
    this.#calls.push(call);
    return call;
  }
}

/**
 * Iterate `stream`, calling `onChunk` per chunk; `onIdle` fires when nothing arrived for `idleMs`
 * (it should abort the request, which ends the iteration).
 */
export async function readChunks<T>(
  stream: AsyncIterable<T>,
  idleMs: number,
  onChunk: (chunk: T) => void,
  onIdle: () => void,
): Promise<void> {
  let timer = setTimeout(onIdle, idleMs);
  try {
    for await (const chunk of stream) {
      clearTimeout(timer);
      timer = setTimeout(onIdle, idleMs);
      onChunk(chunk);
    }
  } finally {
    clearTimeout(timer);
  }
}
