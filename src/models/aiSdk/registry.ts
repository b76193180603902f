import type { ModelSpec } from '../../common/model';
import type { ModelProviders } from '../provider';
import { AiSdkProvider } from './provider';
import { AI_SDK_PROVIDER, languageModelOf } from './spec';

/**
 * The worker's providers with its AI SDK provider: the one registered under `ai-sdk` (or a new
 * one), knowing too every model given to `aiSdk(model)` on the team's agents. A provider of another
 * kind registered under `ai-sdk` is kept as it is.
 */
export function withAiSdkProvider(agents: readonly { model: ModelSpec }[], providers: ModelProviders): ModelProviders {
  const given = providers[AI_SDK_PROVIDER];
  if (given && !(given instanceof AiSdkProvider)) return providers;
  let found = new AiSdkProvider();
  for (const agent of agents) {
    const model = languageModelOf(agent.model);
    if (model) found = found.withModels(new Map([[agent.model.model, model]]));
  }
  return { ...providers, [AI_SDK_PROVIDER]: (given ?? found).withModels(found.models) };
}

/** Problems with the team's AI SDK models on a worker: names that neither an agent's `aiSdk(model)` nor the worker's `AiSdkProvider` resolves. */
export function aiSdkProblems(
  agents: readonly { id: string; model: ModelSpec }[],
  providers: ModelProviders,
): string[] {
  const provider = withAiSdkProvider(agents, providers)[AI_SDK_PROVIDER];
  if (!(provider instanceof AiSdkProvider)) return [];
  return agents
    .filter((a) => a.model.provider === AI_SDK_PROVIDER && !provider.models.has(a.model.model))
    .map(
      (a) =>
        `agent "${a.id}" uses the AI SDK model "${a.model.model}", which this worker does not have; put aiSdk(model) on the agent, or pass createWorker({ providers: { 'ai-sdk': new AiSdkProvider({ models: { "${a.model.model}": model } }) } })`,
    );
}
