/**
 * Models as data: specs, the Chat Completions conversation, and what the `callModel` activity
 * takes and returns. Plain JSON, recorded in history; workflow-safe (no I/O).
 */
import type { LostWorkerRestart } from './lostWorkers';
import type { TeamNeed } from './version';

/** JSON Schema of a tool's parameters, as sent to the model. */
export type JsonSchema = Record<string, unknown>;

/** A model, declared as data; the `callModel` activity resolves the provider by its name. */
export type ModelSpec = OpenAIModelSpec | ScriptedModelSpec | CustomModelSpec;

/**
 * A model served by a provider the worker registers under `provider`
 * (`createWorker({providers: {anthropic: myProvider}})`); see `ModelProvider`.
 */
export interface CustomModelSpec {
  provider: string;
  /** The provider's model name. */
  model: string;
  /** Non-secret settings the provider reads: plain JSON, recorded in history. Keys stay in the worker. */
  settings?: Record<string, unknown>;
}

/** A model served by any OpenAI-compatible Chat Completions endpoint. */
export interface OpenAIModelSpec {
  provider: 'openai';
  /** Model name, e.g. `gpt-4o-mini`. */
  model: string;
  settings?: OpenAIModelSettings;
}

/** Non-secret settings of an OpenAI model. The API key never goes into a spec: it stays in the worker. */
export interface OpenAIModelSettings {
  temperature?: number;
  /**
   * `max_tokens` of each request.
   * @default 2048 on servers other than OpenAI's own API (or the worker's `OpenAIProvider` option `maxTokens`), none on OpenAI's
   */
  maxTokens?: number;
  /** Endpoint; overrides `OPENAI_BASE_URL`. */
  baseURL?: string;
  /**
   * How long the server may go without sending anything, in milliseconds: until a streamed answer
   * starts and then between its chunks, or until a whole (not streamed) answer. A request that takes
   * longer is aborted and sent again once, after a pause; a second timeout in a row fails the call
   * as slow. @default 120000
   */
  timeoutMs?: number;
  /**
   * Stream the answer: the call heartbeats per chunk, a long answer is not cut by `timeoutMs`
   * (which then bounds the wait for the answer to start and each gap between chunks), and usage is
   * asked for in the stream. Servers that cannot stream an answer are asked again without streaming;
   * a server that ignores the request for a stream has its whole answer used.
   * @default true (or the worker's `OpenAIProvider` option `stream`)
   */
  stream?: boolean;
}

/** Whether a model spec is a scripted model. */
export function isScriptedSpec(model: ModelSpec | undefined): model is ScriptedModelSpec {
  return model?.provider === 'scripted';
}

/** A deterministic model declared as data: ordered steps, then rules on the latest input. */
export interface ScriptedModelSpec {
  provider: 'scripted';
  /** Display name in the audit and the UI. @default "scripted" */
  model: string;
  /** Answers for this agent's 1st, 2nd, … model call in a run, in order. */
  steps: ScriptedStep[];
  /** Answers chosen by the latest message once the steps are used up; the first match wins. */
  rules: ScriptedRule[];
  /** Fail a run that ends with steps left over ({@link UnconsumedScriptStepsError}). @default true */
  requireAllSteps: boolean;
}

/** One scripted model answer. */
export interface ScriptedStep {
  /** Plain text answer (ends the agent's turn when there are no tool calls). */
  text?: string;
  /** Tool calls to make (the agent's tools, or `handoff`/`delegate`), in order. */
  toolCalls?: ScriptedToolCall[];
  /** Sugar for a `handoff` tool call. */
  handoff?: { to: string; message: string };
  /** Fail this many activity attempts with a retryable error before answering. */
  failAttempts?: number;
  /** Wait this long (ms) before answering, as a real model would. */
  delayMs?: number;
  /** Reported token usage. @default derived from text lengths */
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * A tool call a scripted model makes.
 * @example { name: 'lookupOrder', arguments: { orderId: '1042' } }
 */
export interface ScriptedToolCall {
  /** The tool's name, as the agent has it (`handoff`, `delegate` and MCP tools' `<server>__<tool>` too). */
  name: string;
  /** The arguments as an object; the model activity sends them on as JSON text, as a real model would. */
  arguments: Record<string, unknown>;
}

/** A scripted answer chosen by the content of the latest user or tool message. */
export interface ScriptedRule {
  /** Case-insensitive substring that the latest user or tool message must contain; empty matches all. */
  whenIncludes: string;
  reply: ScriptedStep;
}

/**
 * What a model costs (its price in a team's `prices`), per million tokens, in `currency`.
 * @example { input: 0.15, cachedInput: 0.075, output: 0.6 }
 */
export interface ModelPrice {
  /** Per million input tokens the provider did not serve from its prompt cache. */
  input: number;
  /** Per million input tokens served from the provider's prompt cache. @default `input` */
  cachedInput?: number;
  /** Per million output tokens (reasoning tokens included, as providers bill them). */
  output: number;
  /** ISO 4217 code. Every price of one table must have the same. @default "USD" */
  currency?: string;
}

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A conversation message in the Chat Completions shape. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** Input of the `callModel` activity. */
export interface CallModelInput {
  agentId: string;
  model: ModelSpec;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** How many model calls this agent has had before in this run (0-based); scripted models use it. */
  callIndex: number;
  /** Why the model is called when the call is not one of the agent's turns (a handoff's summary). */
  purpose?: 'summary' | 'routing';
  /**
   * JSON Schema the final answer must match (the agent's `outputType`); providers that can ask the
   * model for it do (OpenAI's `response_format`).
   */
  outputSchema?: JsonSchema;
  /** Set when the call was started again after its worker was lost (see the `lostWorkerRetries` run option). */
  lostWorker?: LostWorkerRestart;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
  /** The model's price in the chain's snapshot (chains with economics), so the worker's metrics count the call's cost. */
  price?: ModelPrice;
  /** Where the call's text goes as it forms; set by chains that stream (see {@link StreamTag}). */
  stream?: StreamTag;
}

/**
 * Where a model call's text goes as it forms: the worker publishes it to the chain's own topic (its
 * workflow id) and to `root`'s, so whoever follows the chain or the top of its delegation sees it.
 * Set by the workflow; the text itself never enters history.
 */
export interface StreamTag {
  /** The chain at the top of the delegation this call works in, when it is not the call's own. */
  root?: string;
  /** The conversation's turn (message number) the call answers. */
  turn?: number;
  /** The idempotency key of the conversation message the call answers. */
  message?: string;
  /** Keys of messages answered with it (they interrupted its turn). */
  merged?: string[];
}

/** What the `callModelLocal` activity answers: its input beside the model's answer, so history records both. */
export interface LocalModelCall {
  input: CallModelInput;
  response: ModelResponse;
}

/** Input of the `summarizeHandoff` activity: a conversation a handoff carries, to condense. */
export interface SummarizeInput {
  /** The agent handing off, whose model summarizes. */
  agentId: string;
  model: ModelSpec;
  transcript: string;
  /** What the summary must keep. */
  instructions?: string;
  /** Set when the call was started again after its worker was lost (see the `lostWorkerRetries` run option). */
  lostWorker?: LostWorkerRestart;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
}

/** Result of the `summarizeHandoff` activity. */
export interface SummarizeResult {
  summary: string;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
}

/** Input of the `routeSpecialist` activity: a routing request no profile matched. */
export interface RouteSpecialistInput {
  /** The agent asking, whose model decides. */
  agentId: string;
  model: ModelSpec;
  request: { specialistType: string; task: string; requiredCapabilities: string[] };
  /** The candidates: id and profile. */
  specialists: {
    id: string;
    specialization: string;
    capabilities: string[];
    description?: string;
    examples?: string[];
  }[];
  /** Set when the call was started again after its worker was lost (see the `lostWorkerRetries` run option). */
  lostWorker?: LostWorkerRestart;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
}

/** Result of the `routeSpecialist` activity: the chosen specialist, or why none fits. */
export interface RouteSpecialistResult {
  agent?: string;
  reason?: string;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
}

/** What a model answered. */
export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  /** `cachedInputTokens`: of the input tokens, those the provider served from its prompt cache (when it says). */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  /** The model that answered, as the provider reports it. */
  model: string;
  /**
   * A final answer checked against the agent's `outputType` by the `callModel` activity: the
   * parsed value, or what is wrong with it.
   */
  output?: { value: unknown } | { error: string };
  /**
   * The typed input of each handoff call to a target with an `inputType`, checked by the
   * `callModel` activity: by the call's position in `toolCalls` (`null` for other calls).
   */
  handoffInputs?: ({ value: unknown } | { error: string } | null)[];
}
