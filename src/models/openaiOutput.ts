/**
 * How an OpenAI request asks for an agent's structured final answer (`CallModelInput.outputSchema`,
 * from its `outputType`): OpenAI's `response_format`, or the schema in the system message.
 */
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { JsonSchema } from '../common/model';

/**
 * When the OpenAI provider sends `response_format: {type: 'json_schema', …}` for an agent with an
 * `outputType`; a request without it carries the schema in its system message instead.
 * - `auto`: on requests without tools everywhere; with tools too on OpenAI's own API (and Azure
 *   OpenAI), where the format binds only the final message and tool calls stay free.
 * - `always`: on every request, with tools too. On servers whose constrained decoding covers the
 *   whole answer (vLLM), the model can then no longer call a tool, so no agent could hand off.
 * - `without-tools`: only on requests without tools.
 * - `never`: never.
 */
export type ResponseFormatMode = 'auto' | 'always' | 'without-tools' | 'never';

/** How one request asks for the output type. */
export type OutputRequest = 'response_format' | 'instruction';

/** What decides {@link outputRequest} besides the mode. */
export interface OutputRequestFacts {
  /** The request offers tools (every agent of a team of two or more has the handoff tool). */
  tools: boolean;
  /** The endpoint's base URL. */
  baseURL: string;
  /** The endpoint refused `response_format` before. */
  refused: boolean;
}

/** Whether a request for a structured answer carries `response_format` or the schema as an instruction. */
export function outputRequest(mode: ResponseFormatMode, facts: OutputRequestFacts): OutputRequest {
  if (mode === 'never' || facts.refused) return 'instruction';
  if (!facts.tools || mode === 'always') return 'response_format';
  return mode === 'auto' && isOpenAIItself(facts.baseURL) ? 'response_format' : 'instruction';
}

/** OpenAI's own API and Azure OpenAI: documented to combine `response_format` with tools. */
function isOpenAIItself(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname;
    return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
  } catch {
    return false;
  }
}

/**
 * `params` asking for an answer of `schema`: with `response_format` (not strict, so any JSON Schema
 * that zod writes is accepted; the `callModel` activity checks the answer either way), or with the
 * schema appended to the system message.
 */
export function withOutput(params: ChatCompletionCreateParamsNonStreaming, schema: JsonSchema, how: OutputRequest): ChatCompletionCreateParamsNonStreaming {
  if (how === 'response_format') return { ...params, response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: false } } };
  const instruction = outputInstruction(schema);
  const [first, ...rest] = params.messages;
  // Appended to the first system message: chat templates of local models often refuse a second one.
  if (first?.role === 'system' && typeof first.content === 'string') {
    return { ...params, messages: [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest] };
  }
  return { ...params, messages: [{ role: 'system', content: instruction }, ...params.messages] };
}

/** What the model is told about its final answer when the request cannot carry `response_format`. */
export function outputInstruction(schema: JsonSchema): string {
  return `When you give your final answer (rather than calling a tool), answer with only a JSON value that matches this JSON Schema, and nothing else: ${JSON.stringify(schema)}`;
}

/** A refusal of `response_format` by the server: unknown (llama-cpp-python's validation 500), or not for this model or schema. */
export function refusesResponseFormat(status: number | undefined, message: string): boolean {
  return status !== undefined && status >= 400 && status < 600 && status !== 429 && /response_format|json_schema|json schema/i.test(message);
}

/** Whether `params` ask for the answer's shape with `response_format`. */
export function asksResponseFormat(params: ChatCompletionCreateParamsNonStreaming): boolean {
  return params.response_format?.type === 'json_schema';
}

