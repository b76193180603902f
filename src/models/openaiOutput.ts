/**
 * How an OpenAI request asks for an agent's structured final answer (`CallModelInput.outputSchema`,
 * from its `outputType`): a `response_format` the server offers, or the schema in the system message.
 */
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { JsonSchema } from '../common/model';

/**
 * When the OpenAI provider sends a `response_format` for an agent with an `outputType`; a request
 * without one carries the schema in its system message instead.
 * - `auto`: on requests without tools everywhere; with tools too on OpenAI's own API (and Azure
 *   OpenAI), where the format binds only the final message and tool calls stay free.
 * - `always`: on every request, with tools too. On servers whose constrained decoding covers the
 *   whole answer (vLLM), the model can then no longer call a tool, so no agent could hand off.
 * - `without-tools`: only on requests without tools.
 * - `never`: never.
 */
export type ResponseFormatMode = 'auto' | 'always' | 'without-tools' | 'never';

/**
 * The ways to ask for a structured answer, most binding first. A server that refuses one is asked
 * with the next at once, and this worker remembers it for that endpoint and model:
 * - `json_schema`: `{type: 'json_schema', json_schema: {name: 'output', schema, strict: false}}`
 *   (OpenAI, vLLM, Ollama, llama.cpp's own server);
 * - `json_object_schema`: `{type: 'json_object', schema}`, llama-cpp-python's own form (it refuses
 *   `json_schema` and turns this schema into a grammar), with the schema told in the system message too;
 * - `json_object`: `{type: 'json_object'}` (any JSON), the schema told in the system message;
 * - `instruction`: no `response_format`, the schema told in the system message.
 */
export const STRUCTURED_MODES = ['json_schema', 'json_object_schema', 'json_object', 'instruction'] as const;
export type StructuredMode = (typeof STRUCTURED_MODES)[number];

/** What decides {@link outputRequest} besides the mode. */
export interface OutputRequestFacts {
  /** The request offers tools (every agent of a team of two or more has the handoff tool). */
  tools: boolean;
  /** The endpoint's base URL. */
  baseURL: string;
  /** The most binding way the endpoint has not refused. @default "json_schema" */
  offered?: StructuredMode;
}

/** How a request for a structured answer asks for it. */
export function outputRequest(mode: ResponseFormatMode, facts: OutputRequestFacts): StructuredMode {
  const offered = facts.offered ?? 'json_schema';
  if (mode === 'never') return 'instruction';
  if (!facts.tools || mode === 'always') return offered;
  return mode === 'auto' && isOpenAIItself(facts.baseURL) ? offered : 'instruction';
}

/** OpenAI's own API and Azure OpenAI: documented to combine `response_format` with tools. */
export function isOpenAIItself(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname;
    return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
  } catch {
    return false;
  }
}

/**
 * `params` asking for an answer of `schema` the way `how` says (see {@link STRUCTURED_MODES}). A
 * `json_schema` format is not strict, so any JSON Schema that zod writes is accepted; the `callModel`
 * activity checks the answer either way.
 */
export function withOutput(
  params: ChatCompletionCreateParamsNonStreaming,
  schema: JsonSchema,
  how: StructuredMode,
): ChatCompletionCreateParamsNonStreaming {
  if (how === 'json_schema')
    return {
      ...params,
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: false } },
    };
  const instructed = withInstruction(params, outputInstruction(schema));
  // llama-cpp-python's request model has a `schema` beside `type: 'json_object'`; the client's types do not.
  if (how === 'json_object_schema')
    return { ...instructed, response_format: { type: 'json_object', schema } as unknown as { type: 'json_object' } };
  if (how === 'json_object') return { ...instructed, response_format: { type: 'json_object' } };
  return instructed;
}

function withInstruction(
  params: ChatCompletionCreateParamsNonStreaming,
  instruction: string,
): ChatCompletionCreateParamsNonStreaming {
  const [first, ...rest] = params.messages;
  // Appended to the first system message: chat templates of local models often refuse a second one.
  if (first?.role === 'system' && typeof first.content === 'string') {
    return { ...params, messages: [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest] };
  }
  return { ...params, messages: [{ role: 'system', content: instruction }, ...params.messages] };
}

/** What the model is told about its final answer when the request cannot bind it to the schema. */
export function outputInstruction(schema: JsonSchema): string {
  return `When you give your final answer (rather than calling a tool), answer with only a JSON value that matches this JSON Schema, and nothing else: ${JSON.stringify(schema)}`;
}

/**
 * A refusal of the `response_format` asked for: unknown (llama-cpp-python's validation 500 for
 * `json_schema`), an unexpected field (`schema` beside `json_object`), or not for this model or schema.
 */
export function refusesResponseFormat(status: number | undefined, message: string): boolean {
  return (
    status !== undefined &&
    status >= 400 &&
    status < 600 &&
    status !== 429 &&
    /response_format|json_schema|json_object|json schema/i.test(message)
  );
}

/** How `params` ask for the answer's shape with `response_format`, or `undefined` when they do not. */
export function askedMode(
  params: ChatCompletionCreateParamsNonStreaming,
): Exclude<StructuredMode, 'instruction'> | undefined {
  const format = params.response_format as { type?: string; schema?: unknown } | undefined;
  if (format?.type === 'json_schema') return 'json_schema';
  if (format?.type === 'json_object') return format.schema === undefined ? 'json_object' : 'json_object_schema';
  return undefined;
}

/** The next way to ask after `refused`. */
export function nextMode(refused: StructuredMode): StructuredMode {
  return STRUCTURED_MODES[Math.min(STRUCTURED_MODES.indexOf(refused) + 1, STRUCTURED_MODES.length - 1)]!;
}
