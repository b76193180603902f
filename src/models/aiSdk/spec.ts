/**
 * AI SDK models as baton model specs: `aiSdk(languageModel)` on an agent, or `aiSdk('name')` for a
 * model the worker registers by name. The spec is plain data (recorded in history); the model
 * object itself stays in the worker's process.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { CustomModelSpec } from '../../common/model';

/** The provider name AI SDK model specs carry, and the one the worker's built-in {@link AiSdkProvider} is registered under. */
export const AI_SDK_PROVIDER = 'ai-sdk';

/**
 * How an agent's request for a structured final answer (its `outputType`) reaches an AI SDK model:
 * - `auto`: as the call's `responseFormat` when the call offers no tools, else as an instruction in
 *   the system message (some servers bind the whole answer to a format, so a model could no longer
 *   call a tool or hand off);
 * - `always`: as `responseFormat`, tools or not;
 * - `never`: as an instruction only.
 */
export type AiSdkResponseFormat = 'auto' | 'always' | 'never';

/** Non-secret settings of an AI SDK model: plain JSON, recorded in history. Keys stay in the provider objects of the worker. */
// A type, not an interface: a spec's settings must be assignable to `Record<string, unknown>`.
export type AiSdkModelSettings = {
  temperature?: number;
  /** `maxOutputTokens` of each call. @default the provider's */
  maxTokens?: number;
  /**
   * How long the model may go without sending anything, in milliseconds: until the answer starts
   * (streamed) or until the whole answer (not streamed), then between stream parts. A call that
   * takes longer is aborted and retried by the run's retry policy. @default 120000
   */
  timeoutMs?: number;
  /** Stream the answer (`doStream`), heartbeating per part; `false`: `doGenerate`. @default true */
  stream?: boolean;
  /** @default "auto" */
  responseFormat?: AiSdkResponseFormat;
  /** Passed to the model as the call's `providerOptions` (e.g. `{anthropic: {thinking: {type: 'enabled', budgetTokens: 1024}}}`). */
  providerOptions?: Record<string, Record<string, unknown>>;
};

/** A model served by an AI SDK `LanguageModelV3`. */
export interface AiSdkModelSpec extends CustomModelSpec {
  provider: typeof AI_SDK_PROVIDER;
  /** The name the worker finds the model by: the `name` given to {@link aiSdk}, else the model's `modelId`. */
  model: string;
  settings?: AiSdkModelSettings;
}

/** What {@link aiSdk} takes besides the model. */
export interface AiSdkOptions extends AiSdkModelSettings {
  /**
   * The name of the model in specs, prices and the audit; give one when two different model objects
   * of a team share a `modelId` (the same model on two servers). @default the model's `modelId`
   */
  name?: string;
}

/** Where a spec made from a model object keeps it: not enumerable, so it never reaches history. */
const LANGUAGE_MODEL = Symbol('baton.aiSdk.languageModel');

/**
 * An agent's model served by any AI SDK provider (`@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`,
 * `@ai-sdk/google`, `ollama-ai-provider`, …). Given a `LanguageModelV3`, the worker that loads the
 * team calls it; given a name, the worker finds it among the models of its
 * `new AiSdkProvider({models})`. Each call is a `callModel` activity, as with every provider.
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * defineAgent({ id: 'triage', instructions: '…', model: aiSdk(anthropic('claude-sonnet-4-5'), { maxTokens: 1024 }) });
 * defineAgent({ id: 'writer', instructions: '…', model: aiSdk('fast') }); // createWorker({ providers: { 'ai-sdk': new AiSdkProvider({ models: { fast } }) } })
 */
export function aiSdk(model: LanguageModelV3 | string, options: AiSdkOptions = {}): AiSdkModelSpec {
  const { name, ...settings } = options;
  const spec: AiSdkModelSpec = {
    provider: AI_SDK_PROVIDER,
    model: name ?? (typeof model === 'string' ? model : model.modelId),
  };
  if (Object.keys(settings).length > 0) spec.settings = settings;
  if (typeof model !== 'string') Object.defineProperty(spec, LANGUAGE_MODEL, { value: model, enumerable: false });
  return spec;
}

/** The model object a spec made by {@link aiSdk} carries, if any. */
export function languageModelOf(spec: unknown): LanguageModelV3 | undefined {
  return typeof spec === 'object' && spec !== null
    ? ((spec as Record<symbol, LanguageModelV3 | undefined>)[LANGUAGE_MODEL] ?? undefined)
    : undefined;
}
