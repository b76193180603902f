import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
    response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean }; schema?: unknown };
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

interface Completion {
  model: string;
  choices: { index: number; finish_reason: string; message: FakeMessage }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

let ids = 0;

/** Build Chat Completions answers. */
export const reply = {
  text: (content: string, faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({ ...completion({ role: 'assistant', content }), ...faults }),
  toolCalls: (calls: { name: string; arguments: Record<string, unknown> }[], faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({
    ...completion({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: `call_${++ids}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
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
    ...completion({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: `call_${++ids}`, type: 'function', function: c })) }),
    ...faults,
  }),
  /** A refusal instead of an answer (content null). */
  refusal: (text: string, faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({ ...completion({ role: 'assistant', content: null, refusal: text }), ...faults }),
  /** A completion with an empty choice list. */
  emptyChoices: (faults: Omit<FakeReply, 'body'> = {}): FakeReply => ({ body: { model: 'gpt-fake', choices: [], usage: { prompt_tokens: 20, completion_tokens: 0, total_tokens: 20 } }, ...faults }),
};

function completion(message: FakeMessage): FakeReply {
  const body: Completion = {
    model: 'gpt-fake',
    choices: [{ index: 0, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', message }],
    usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
  };
  return { body };
}

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 answering from a queue, as strict as
 * the servers baton meets: like OpenAI it refuses (400) a conversation in which a tool call has
 * no answer, `tool_choice` without tools and `stream_options` without a stream; like
 * llama-cpp-python it answers 500 to a message whose content is null or missing and ignores
 * `tools` sent without `tool_choice` (the model answers in plain text). It checks `response_format`
 * and honours a `json_schema` one (see {@link FakeServerOptions.responseFormat}). It streams (SSE) when asked.
 */
export async function startOpenAIServer(options: FakeServerOptions = {}) {
  const replies: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: FakeRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as FakeRequest['body'];
      } catch {
        return sendError(res, reply.error(400, 'We could not parse the JSON body of your request.'));
      }
      const request: FakeRequest = { at: Date.now(), path: req.url ?? '', authorization: req.headers.authorization, body };
      requests.push(request);
      res.on('close', () => {
        if (!res.writableFinished) request.closedEarly = true;
      });
      if (req.url !== '/v1/chat/completions') return sendError(res, reply.error(404, `no route ${req.url}`));
      const refusal = refuse(body) ?? refuseResponseFormat(body, options) ?? (options.parsesToolArguments ? refuseToolArguments(body) : undefined);
      if (refusal) return sendError(res, refusal);
      if (cannotStream(body, replies[0], options)) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        return res.end();
      }
      const next = replies.shift() ?? reply.error(500, 'the fake server has no reply left');
      if (next.resetConnection) return void req.socket.destroy();
      setTimeout(() => answer(res, body, next, options), next.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    replies,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How llama-cpp-python's server (0.3.36) answers, with a 500, an assistant message whose content is null. */
export const NULL_CONTENT_ERROR =
  "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string', 'input': None}";
/** … and one that has no content field (its chat template reads it). */
export const MISSING_CONTENT_ERROR = "'dict object' has no attribute 'content'";

function serverError(message: string): FakeReply {
  return { status: 500, body: { error: { message, type: 'internal_server_error', param: null, code: null } } };
}

function refuse(body: FakeRequest['body']): FakeReply | undefined {
  if (body.stream_options !== undefined && !body.stream) {
    return reply.error(400, "The 'stream_options' parameter is only allowed when 'stream' is set to true.");
  }
  if (body.tool_choice !== undefined && !body.tools?.length) {
    return reply.error(400, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  }
  const messages = body.messages ?? [];
  if (messages.some((m) => m.content === null)) return serverError(NULL_CONTENT_ERROR);
  if (messages.some((m) => m.content === undefined)) return serverError(MISSING_CONTENT_ERROR);
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const unanswered = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)).filter((id) => !answered.has(id));
  if (unanswered.length > 0) {
    return reply.error(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${unanswered.join(', ')}`);
  }
  return undefined;
}

/** llama-cpp-python 0.3's answer to a `json_schema` response format: pydantic's literal error, as a 500. */
export const JSON_SCHEMA_FORMAT_ERROR =
  "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}";

/** A pydantic server's answer to a field its request model forbids (FastAPI's 422 `detail`). */
export const EXTRA_SCHEMA_FIELD_ERROR = { detail: [{ type: 'extra_forbidden', loc: ['body', 'response_format', 'schema'], msg: 'Extra inputs are not permitted' }] };

/**
 * A `response_format` the server does not take: OpenAI's 400s for a malformed one,
 * llama-cpp-python's 500 for `json_schema`, and what the stricter modes refuse.
 */
function refuseResponseFormat(body: FakeRequest['body'], options: FakeServerOptions): FakeReply | undefined {
  const format = body.response_format;
  if (format === undefined) return undefined;
  if (options.responseFormat === 'llama-cpp-python') return format.type === 'json_schema' ? serverError(JSON_SCHEMA_FORMAT_ERROR) : undefined;
  if (options.responseFormat === 'none') return reply.error(400, `response_format is not supported by this server (got type ${format.type})`);
  if (options.responseFormat === 'json_object') {
    if (format.type === 'json_schema') return reply.error(400, "Invalid value for 'response_format.type': 'json_schema' is not supported, use 'json_object'.");
    if (format.schema !== undefined) return reply.raw(422, EXTRA_SCHEMA_FIELD_ERROR);
    return undefined;
  }
  if (!['text', 'json_object', 'json_schema'].includes(format.type ?? '')) {
    return reply.error(400, `Invalid value: '${format.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`);
  }
  if (format.type !== 'json_schema') return undefined;
  const name = format.json_schema?.name;
  if (name === undefined) return reply.error(400, "Missing required parameter: 'response_format.json_schema.name'.");
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) return reply.error(400, `Invalid 'response_format.json_schema.name': string does not match pattern. Got '${name}'.`);
  const schema = format.json_schema?.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return reply.error(400, "Invalid type for 'response_format.json_schema.schema': expected an object.");
  return undefined;
}

/**
 * The answer under a `json_schema` or `json_object` format: the reply's `formatted` text instead of
 * its own; on a server that constrains the whole answer, instead of its tool calls too.
 */
function honourResponseFormat(c: Completion, request: FakeRequest['body'], r: FakeReply, options: FakeServerOptions): void {
  const message = c.choices[0]!.message;
  if (message.tool_calls?.length) {
    if (options.responseFormat !== 'vllm' || !request.tool_choice) return;
    c.choices[0] = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: r.formatted ?? '{}' } };
    return;
  }
  if (r.formatted !== undefined) message.content = r.formatted;
}

/** vLLM's answer to earlier tool-call arguments that are not a JSON object (its `json.loads` of them fails). */
function refuseToolArguments(body: FakeRequest['body']): FakeReply | undefined {
  for (const call of (body.messages ?? []).flatMap((m) => m.tool_calls ?? [])) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.function.arguments);
    } catch (err) {
      return reply.error(400, `${(err as Error).message} None`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reply.error(400, "'list' object has no attribute 'items' None");
  }
  return undefined;
}

function sendError(res: http.ServerResponse, r: FakeReply): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  res.writeHead(r.status ?? 500, { 'content-type': typeof r.body === 'string' ? 'text/plain' : 'application/json', ...r.headers });
  res.end(text);
}

/**
 * A streamed answer with tool calls from a server that cannot stream them: like llama-cpp-python,
 * an empty stream (its error is raised after the 200). The reply stays for the next request.
 */
function cannotStream(body: FakeRequest['body'], next: FakeReply | undefined, options: FakeServerOptions): boolean {
  const calls = (next?.body as Completion | undefined)?.choices?.[0]?.message.tool_calls;
  return options.streamsToolCalls === false && body.stream === true && body.tool_choice !== undefined && (calls?.length ?? 0) > 0;
}

function answer(res: http.ServerResponse, request: FakeRequest['body'], r: FakeReply, options: FakeServerOptions): void {
  if (r.status !== undefined && r.status !== 200) return sendError(res, r);
  if (r.malformed) return sendMalformed(res, request);
  const completion = structuredClone(r.body) as Completion;
  if (completion.choices.length === 0) return sendNoChoices(res, request, completion);
  if (r.omitUsage) delete completion.usage;
  else if (r.usage) {
    const { prompt, completion: out, cached } = r.usage;
    completion.usage = { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out, ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}) };
  }
  if (request.response_format?.type === 'json_schema' || request.response_format?.type === 'json_object') honourResponseFormat(completion, request, r, options);
  const message = completion.choices[0]!.message;
  if (message.tool_calls && !request.tool_choice) {
    // Tools without tool_choice never reach the prompt: the model can only write about calling them.
    const text = message.tool_calls.map((c) => `functions.${c.function.name}: ${c.function.arguments}`).join('\n');
    completion.choices[0] = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } };
  }
  if (!request.stream || options.ignoresStream) {
    res.writeHead(200, { 'content-type': 'application/json', ...r.headers });
    res.end(JSON.stringify({ id: `chatcmpl-${++ids}`, object: 'chat.completion', created: now(), ...completion }));
    return;
  }
  stream(res, streamChunks(completion, request.stream_options?.include_usage === true), r);
}

/** A 200 whose body breaks off in the middle of its JSON. */
function sendMalformed(res: http.ServerResponse, request: FakeRequest['body']): void {
  const broken = `{"id":"chatcmpl-${++ids}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hel`;
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(broken);
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${broken}\n\ndata: [DONE]\n\n`);
}

/** A completion with no choices; streamed, chunks with none. */
function sendNoChoices(res: http.ServerResponse, request: FakeRequest['body'], c: Completion): void {
  const body = { id: `chatcmpl-${++ids}`, created: now(), ...c };
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ object: 'chat.completion', ...body }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${JSON.stringify({ ...body, object: 'chat.completion.chunk' })}\n\ndata: [DONE]\n\n`);
}

function streamChunks(c: Completion, withUsage: boolean): unknown[] {
  const id = `chatcmpl-${++ids}`;
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: now(),
    model: c.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const { message, finish_reason } = c.choices[0]!;
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of (message.content ?? '').match(/.{1,4}/gs) ?? []) out.push(chunk({ content: piece }));
  for (const piece of (message.refusal ?? '').match(/.{1,8}/gs) ?? []) out.push(chunk({ refusal: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    const half = Math.ceil(call.function.arguments.length / 2);
    for (const part of [call.function.arguments.slice(0, half), call.function.arguments.slice(half)]) {
      if (part) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, finish_reason));
  if (withUsage && c.usage) out.push({ id, object: 'chat.completion.chunk', created: now(), model: c.model, choices: [], usage: c.usage });
  return out;
}

function stream(res: http.ServerResponse, chunks: unknown[], r: FakeReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...r.headers });
  res.flushHeaders();
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    if (r.cutAfterChunks !== undefined && sent >= r.cutAfterChunks) {
      res.socket?.destroy();
      return;
    }
    if (r.stallAfterChunks !== undefined && sent >= r.stallAfterChunks) return;
    if (sent === chunks.length) {
      res.end('data: [DONE]\n\n');
      return;
    }
    res.write(`data: ${JSON.stringify(chunks[sent++])}\n\n`);
    setTimeout(next, r.chunkDelayMs ?? 0);
  };
  setTimeout(next, r.chunkDelayMs ?? 0);
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
