/**
 * How the fake OpenAI-compatible endpoint writes a reply: as JSON or as a stream of chunks (SSE),
 * with the reply's faults (a cut or stalled stream, a malformed body, no choices, no usage) and
 * the response format it honours.
 */
import type http from 'node:http';
import { type Completion, type FakeReply, type FakeRequest, type FakeServerOptions, nextId } from './openaiReplies';

/** An error answer: its status, headers and body (JSON, or the text given). */
export function sendError(res: http.ServerResponse, r: FakeReply): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  res.writeHead(r.status ?? 500, {
    'content-type': typeof r.body === 'string' ? 'text/plain' : 'application/json',
    ...r.headers,
  });
  res.end(text);
}

/**
 * The answer under a `json_schema` or `json_object` format: the reply's `formatted` text instead of
 * its own; on a server that constrains the whole answer, instead of its tool calls too.
 */
function honourResponseFormat(
  c: Completion,
  request: FakeRequest['body'],
  r: FakeReply,
  options: FakeServerOptions,
): void {
  const message = c.choices[0]!.message;
  if (message.tool_calls?.length) {
    if (options.responseFormat !== 'vllm' || !request.tool_choice) return;
    c.choices[0] = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: r.formatted ?? '{}' } };
    return;
  }
  if (r.formatted !== undefined) message.content = r.formatted;
}

/** The reply `r` to `request`: an error, a completion, or a stream of chunks with the faults it asks for. */
export function answer(
  res: http.ServerResponse,
  request: FakeRequest['body'],
  r: FakeReply,
  options: FakeServerOptions,
): void {
  if (r.status !== undefined && r.status !== 200) return sendError(res, r);
  if (r.malformed) return sendMalformed(res, request);
  const completion = structuredClone(r.body) as Completion;
  if (completion.choices.length === 0) return sendNoChoices(res, request, completion);
  if (r.omitUsage) delete completion.usage;
  else if (r.usage) {
    const { prompt, completion: out, cached } = r.usage;
    completion.usage = {
      prompt_tokens: prompt,
      completion_tokens: out,
      total_tokens: prompt + out,
      ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    };
  }
  if (request.response_format?.type === 'json_schema' || request.response_format?.type === 'json_object')
    honourResponseFormat(completion, request, r, options);
  const message = completion.choices[0]!.message;
  if (message.tool_calls && !request.tool_choice) {
    // Tools without tool_choice never reach the prompt: the model can only write about calling them.
    const text = message.tool_calls.map((c) => `functions.${c.function.name}: ${c.function.arguments}`).join('\n');
    completion.choices[0] = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } };
  }
  if (!request.stream || options.ignoresStream) {
    res.writeHead(200, { 'content-type': 'application/json', ...r.headers });
    res.end(JSON.stringify({ id: `chatcmpl-${nextId()}`, object: 'chat.completion', created: now(), ...completion }));
    return;
  }
  stream(res, streamChunks(completion, request.stream_options?.include_usage === true), r);
}

/** A 200 whose body breaks off in the middle of its JSON. */
function sendMalformed(res: http.ServerResponse, request: FakeRequest['body']): void {
  const broken = `{"id":"chatcmpl-${nextId()}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hel`;
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(broken);
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${broken}\n\ndata: [DONE]\n\n`);
}

/** A completion with no choices; streamed, chunks with none. */
function sendNoChoices(res: http.ServerResponse, request: FakeRequest['body'], c: Completion): void {
  const body = { id: `chatcmpl-${nextId()}`, created: now(), ...c };
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ object: 'chat.completion', ...body }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${JSON.stringify({ ...body, object: 'chat.completion.chunk' })}\n\ndata: [DONE]\n\n`);
}

function streamChunks(c: Completion, withUsage: boolean): unknown[] {
  const id = `chatcmpl-${nextId()}`;
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
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    const half = Math.ceil(call.function.arguments.length / 2);
    for (const part of [call.function.arguments.slice(0, half), call.function.arguments.slice(half)]) {
      if (part) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, finish_reason));
  if (withUsage && c.usage)
    out.push({ id, object: 'chat.completion.chunk', created: now(), model: c.model, choices: [], usage: c.usage });
  return out;
}

function stream(res: http.ServerResponse, chunks: unknown[], r: FakeReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...r.headers });
  res.flushHeaders();
  let sent = 0;
  // With streamMs, chunk i goes out at its share of that time from the start, however late the timers fire.
  const start = Date.now();
  const wait = () =>
    r.streamMs !== undefined
      ? Math.max(0, start + ((sent + 1) * r.streamMs) / (chunks.length + 1) - Date.now())
      : (r.chunkDelayMs ?? 0);
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
    setTimeout(next, wait());
  };
  setTimeout(next, wait());
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
