/**
 * What the fake OpenAI-compatible endpoint refuses, as the servers baton meets do: OpenAI's 400s,
 * llama-cpp-python's 500s, vLLM's refusal of tool-call arguments that are not an object, and the
 * `response_format`s each takes.
 */
import { type Completion, type FakeReply, type FakeRequest, type FakeServerOptions, reply } from './openaiReplies';

/** How llama-cpp-python's server (0.3.36) answers, with a 500, an assistant message whose content is null. */
export const NULL_CONTENT_ERROR =
  "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string', 'input': None}";
/** … and one that has no content field (its chat template reads it). */
export const MISSING_CONTENT_ERROR = "'dict object' has no attribute 'content'";

/** A 500 as these servers send one. */
function serverError(message: string): FakeReply {
  return { status: 500, body: { error: { message, type: 'internal_server_error', param: null, code: null } } };
}

export function refuse(body: FakeRequest['body']): FakeReply | undefined {
  if (body.stream_options !== undefined && !body.stream) {
    return reply.error(400, "The 'stream_options' parameter is only allowed when 'stream' is set to true.");
  }
  if (body.tool_choice !== undefined && !body.tools?.length) {
    return reply.error(
      400,
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    );
  }
  const messages = body.messages ?? [];
  if (messages.some((m) => m.content === null)) return serverError(NULL_CONTENT_ERROR);
  if (messages.some((m) => m.content === undefined)) return serverError(MISSING_CONTENT_ERROR);
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const unanswered = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)).filter((id) => !answered.has(id));
  if (unanswered.length > 0) {
    return reply.error(
      400,
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${unanswered.join(', ')}`,
    );
  }
  return undefined;
}

/** llama-cpp-python 0.3's answer to a `json_schema` response format: pydantic's literal error, as a 500. */
export const JSON_SCHEMA_FORMAT_ERROR =
  "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}";

/** A pydantic server's answer to a field its request model forbids (FastAPI's 422 `detail`). */
export const EXTRA_SCHEMA_FIELD_ERROR = {
  detail: [
    { type: 'extra_forbidden', loc: ['body', 'response_format', 'schema'], msg: 'Extra inputs are not permitted' },
  ],
};

/**
 * A `response_format` the server does not take: OpenAI's 400s for a malformed one,
 * llama-cpp-python's 500 for `json_schema`, and what the stricter modes refuse.
 */
export function refuseResponseFormat(body: FakeRequest['body'], options: FakeServerOptions): FakeReply | undefined {
  const format = body.response_format;
  if (format === undefined) return undefined;
  if (options.responseFormat === 'llama-cpp-python')
    return format.type === 'json_schema' ? serverError(JSON_SCHEMA_FORMAT_ERROR) : undefined;
  if (options.responseFormat === 'none')
    return reply.error(400, `response_format is not supported by this server (got type ${format.type})`);
  if (options.responseFormat === 'json_object') {
    if (format.type === 'json_schema')
      return reply.error(
        400,
        "Invalid value for 'response_format.type': 'json_schema' is not supported, use 'json_object'.",
      );
    if (format.schema !== undefined) return reply.raw(422, EXTRA_SCHEMA_FIELD_ERROR);
    return undefined;
  }
  if (!['text', 'json_object', 'json_schema'].includes(format.type ?? '')) {
    return reply.error(
      400,
      `Invalid value: '${format.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
    );
  }
  if (format.type !== 'json_schema') return undefined;
  const name = format.json_schema?.name;
  if (name === undefined) return reply.error(400, "Missing required parameter: 'response_format.json_schema.name'.");
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    return reply.error(
      400,
      `Invalid 'response_format.json_schema.name': string does not match pattern. Got '${name}'.`,
    );
  const schema = format.json_schema?.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return reply.error(400, "Invalid type for 'response_format.json_schema.schema': expected an object.");
  return undefined;
}

/** vLLM's answer to earlier tool-call arguments that are not a JSON object (its `json.loads` of them fails). */
export function refuseToolArguments(body: FakeRequest['body']): FakeReply | undefined {
  for (const call of (body.messages ?? []).flatMap((m) => m.tool_calls ?? [])) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.function.arguments);
    } catch (err) {
      return reply.error(400, `${(err as Error).message} None`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return reply.error(400, "'list' object has no attribute 'items' None");
  }
  return undefined;
}

/**
 * A streamed answer with tool calls from a server that cannot stream them: like llama-cpp-python,
 * an empty stream (its error is raised after the 200). The reply stays for the next request.
 */
export function cannotStream(
  body: FakeRequest['body'],
  next: FakeReply | undefined,
  options: FakeServerOptions,
): boolean {
  const calls = (next?.body as Completion | undefined)?.choices?.[0]?.message.tool_calls;
  return (
    options.streamsToolCalls === false &&
    body.stream === true &&
    body.tool_choice !== undefined &&
    (calls?.length ?? 0) > 0
  );
}
