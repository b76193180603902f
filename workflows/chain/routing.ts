/**
 * Capability routing: a request for "a specialist of this kind" goes to the agent whose profile
 * matches, decided in the workflow; when none matches, the asking agent's model picks one from
 * the profiles (the `routeSpecialist` activity, recorded) or says none fits.
 */
import { matchSpecialist, readSpecialistRequest, type SpecialistRequest, specialists } from '../../src/common/delegation';
import type { ToolCall } from '../../src/common/model';
import type { AgentSpec } from '../../src/common/team';
import type { ChainRun } from './step';

/** Where a routing request goes: a specialist, or the answer the model gets instead. */
export type Routed = { kind: 'to'; to: string; request: SpecialistRequest } | { kind: 'answer'; answer: string };

export async function routeToSpecialist(run: ChainRun, agent: AgentSpec, call: ToolCall): Promise<Routed> {
  const { chain, effects } = run;
  const request = readSpecialistRequest(call);
  if (typeof request === 'string') return { kind: 'answer', answer: `Error: ${request}` };
  const matched = matchSpecialist(chain.state.team, agent.id, request);
  if (matched) return { kind: 'to', to: matched, request };
  const candidates = specialists(chain.state.team, agent.id);
  if (candidates.length === 0) return { kind: 'answer', answer: 'No specialist is available: no other agent of the team has a profile. Answer yourself.' };
  const routed = await effects.routeSpecialist(
    {
      agentId: agent.id,
      model: agent.model,
      request: { specialistType: request.specialistType, task: request.task, requiredCapabilities: request.requiredCapabilities },
      specialists: candidates.map((a) => ({ id: a.id, ...a.profile! })),
    },
    chain.state.options,
  );
  chain.apply({ type: 'model_used', usage: routed.usage });
  run.economy?.charge(chain.state, effects, routed.usage);
  if (routed.agent) return { kind: 'to', to: routed.agent, request };
  return { kind: 'answer', answer: `No specialist fits "${request.specialistType}": ${routed.reason ?? 'none of the profiles matches'}. Answer yourself or ask for another kind of specialist.` };
}
