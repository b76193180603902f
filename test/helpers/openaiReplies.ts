/**
 * What the fake OpenAI-compatible endpoint (openaiServer.ts) answers and reads: scripted replies
 * with the faults to inject into them, the requests it received, and how strict it is.
 */

/** One scripted HTTP answer of the fake endpoint, with the faults to inject into it. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A completion (streamed when the request asks for a stream), or an error body (an object, or raw text). */
  body: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Streamed: wait this long before each chunk. */
  chunkDelayMs?: number;
  /** Streamed: spread the chunks evenly over this long from the answer's start, the last at its end (instead of `chunkDelayMs`). */
  streamMs?: number;
  /** Streamed: close the connection after this many chunks, with no finish reason and no `[DONE]`. */
  cutAfterChunks?: number;
  /** Leave usage out, streamed or not. */
  omitUsage?: boolean;
  /** Report this usage, with `cached` of the prompt tokens served from the prompt cache (`prompt_tokens_details.cached_tokens`), as OpenAI does. */
  usage?: { prompt: number; completion: number; cached?: number };
  /** Close the connection as soon as the request is read, with no answer at all (a connection reset). */
  resetConnection?: boolean;
  /** Streamed: send this many chunks, then nothing more, keeping the connection open (a hung stream). */
  stallAfterChunks?: number;
  /** Answer 200 with a body that is not valid JSON (streamed: a first event that is not). */
  malformed?: boolean;
  /**
   * What the model writes when the request carries a `json_schema` response format, as a decoder
   * held to the schema would: it replaces the reply's text (and, on a server that constrains the
   * whole answer, its tool calls).
   */
  formatted?: string;
}

/** A message as the fake endpoint reads it. */
export interface FakeMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  /** A refusal, as OpenAI sends one instead of content. */
  refusal?: string | null;
}

/** A request the fake endpoint received. */
export interface FakeRequest {
  at: number;
  path: string;
  authorization?: string;
  /** The client closed the connection before the answer was complete. */
  closedEarly?: boolean;
  body: {
    model: string;
    messages: FakeMessage[];
    tools?: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
    tool_choice?: unknown;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    response_format?: {
      type?: string;
      json_schema?: { name?: string; schema?: unknown; strict?: boolean };
      schema?: unknown;
    };
  };
}

/** How strict the fake endpoint is beyond what every test relies on. */
export interface FakeServerOptions {
  /**
   * Whether a streamed answer may carry tool calls. `false` acts like llama-cpp-python's
   * `chatml-function-calling` format, which raises "Automatic streaming tool choice is not
   * supported" after sending 200, so the stream ends empty. @default true
   */
  streamsToolCalls?: boolean;
  /**
   * Parse the arguments of the assistant's earlier tool calls, as vLLM does before applying its chat
   * template, and refuse (400) a conversation in which they are not a JSON object. @default false
   */
  parsesToolArguments?: boolean;
  /**
   * How the server treats `response_format`. `openai` checks it as OpenAI does (400 for a bad one)
   * and applies a `json_schema` to the final message only, so tools stay callable;
   * `llama-cpp-python` refuses the `json_schema` type (its request model allows `text` and
   * `json_object`) with a validation 500, and holds the answer to the `schema` it takes beside
   * `json_object` (its own form); `vllm` constrains the whole answer to the schema, so the model
   * cannot call a tool while the format is set; `json_object` takes only `{type: 'json_object'}`
   * (a `schema` beside it is an extra field its request model forbids); `none` refuses any
   * `response_format`. @default 'openai'
   */
  responseFormat?: 'openai' | 'llama-cpp-python' | 'vllm' | 'json_object' | 'none';
  /** Answer a request for a stream with the whole completion as JSON, as servers that ignore `stream: true` do. @default false */
  ignoresStream?: boolean;
}

/** A completion as the fake endpoint answers it. */
export interface Completion {
  model: string;
  choices: { index: number; finish_reason: string; message: FakeMessage }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
  };
}

let ids = 0;

/** The next id of a tool call or a completion, unique in the process. */
export function nextId(): number {
  return ++ids;
}

/** Build Chat Completions answers. */
export const reply = {
  text: (content: string, faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({
    ...completion({ role: 'assistant', content }),
    ...faults,
  }),
  toolCalls: (
    calls: { name: string; arguments: Record<string, unknown> }[],
    faults: Omit<FakeReply, 'body'> = {},
  ): FakeReply => ({
    ...completion({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({
        id: `call_${nextId()}`,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    }),
    ...faults,
  }),
  error: (status: number, message: string, headers: Record<string, string> = {}): FakeReply => ({
    status,
    headers,
    body: { error: { message, type: 'fake_error', param: null, code: null } },
  }),
  /** An error answer with exactly this body (FastAPI's `{"detail": …}`, plain text). */
  raw: (status: number, body: unknown): FakeReply => ({ status, body }),
  /** Tool calls whose arguments are this raw text, JSON or not. */
  rawToolCalls: (calls: { name: string; arguments: string }[], faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({
    ...completion({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: `call_${nextId()}`, type: 'function', function: c })),
    }),
    ...faults,
  }),
  /** A refusal instead of an answer (content null). */
  refusal: (text: string, faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({
    ...completion({ role: 'assistant', content: null, refusal: text }),
    ...faults,
  }),
  /** A completion with an empty choice list. */
  emptyChoices: (faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({
    body: { model: 'gpt-fake', choices: [], usage: { prompt_tokens: 20, completion_tokens: 0, total_tokens: 20 } },
    ...faults,
  }),
};

function completion(message: FakeMessage): FakeReply {
  const body: Completion = {
    model: 'gpt-fake',
    choices: [{ index: 0, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', message }],
    usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
  };
  return { body };
}
