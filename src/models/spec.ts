import type {
  CustomModelSpec,
  OpenAIModelSettings,
  OpenAIModelSpec,
  ScriptedModelSpec,
  ScriptedRule,
  ScriptedStep,
} from '../common/model';

/**
 * A model on any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, Ollama, llama.cpp).
 * The worker reads `OPENAI_API_KEY` and `OPENAI_BASE_URL`; `settings.baseURL` overrides the latter.
 * @example openai('gpt-4o-mini', { temperature: 0 })
 */
export function openai(model: string, settings?: OpenAIModelSettings): OpenAIModelSpec {
  return settings ? { provider: 'openai', model, settings } : { provider: 'openai', model };
}

/**
 * A model served by a provider the worker registers under `provider`
 * (`createWorker({ providers: { [provider]: myProvider } })`).
 * @example model('anthropic', 'claude-sonnet-4-5', { maxTokens: 1024 })
 */
export function model(provider: string, name: string, settings?: Record<string, unknown>): CustomModelSpec {
  return settings ? { provider, model: name, settings } : { provider, model: name };
}

/** How a scripted model is declared: a list of steps, or steps and rules. */
export interface ScriptedOptions {
  /** @default "scripted" */
  model?: string;
  steps?: ScriptedStep[];
  rules?: ScriptedRule[];
  /** @default true */
  requireAllSteps?: boolean;
}

/**
 * A deterministic model declared as data, for tests, demos and benchmarks. An agent's n-th model
 * call in a run gets `steps[n]`; after the steps, the first rule whose `whenIncludes` appears in the
 * latest user or tool message answers. A call with neither fails with `UnexpectedModelCallError`; a
 * run that ends with steps unused fails with `UnconsumedScriptStepsError` unless `requireAllSteps` is false.
 * @example
 * scripted([{ handoff: { to: 'refunds', message: 'Order 42 wants a refund' } }])
 * scripted({ rules: [{ whenIncludes: 'refund', reply: { handoff: { to: 'refunds', message: '…' } } }] })
 */
export function scripted(script: ScriptedStep[] | ScriptedOptions): ScriptedModelSpec {
  const o: ScriptedOptions = Array.isArray(script) ? { steps: script } : script;
  return {
    provider: 'scripted',
    model: o.model ?? 'scripted',
    steps: o.steps ?? [],
    rules: o.rules ?? [],
    requireAllSteps: o.requireAllSteps ?? true,
  };
}
