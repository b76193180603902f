/**
 * The check a plugin makes of its team's model providers when it is built: every agent's provider
 * is one the worker has, so a missing one fails before anything connects, not mid-chain.
 */
import type { Team } from '../../agents/team';
import { TeamValidationError } from '../../common/errors';
import { AI_SDK_PROVIDER, aiSdkProblems } from '../../models/aiSdk';
import type { ModelProviders } from '../../models/provider';

/** Every agent's model provider must be one this worker has: a missing one fails here, not mid-chain. */
export function checkProviders(team: Team, providers: ModelProviders): void {
  const known = new Set(['openai', 'scripted', AI_SDK_PROVIDER, ...Object.keys(providers)]);
  const problems = team.agents
    .filter((a) => !known.has(a.model.provider))
    .map(
      (a) =>
        `agent "${a.id}" uses model provider "${a.model.provider}", which this worker does not have (it has ${[...known].join(', ')}); pass createWorker({ providers: { ${a.model.provider}: … } }), or give the agent an AI SDK model with aiSdk(model)`,
    );
  problems.push(...aiSdkProblems(team.agents, providers));
  if (problems.length > 0) throw new TeamValidationError(problems);
}
