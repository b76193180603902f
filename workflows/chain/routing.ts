/**
 * Capability routing: a request for "a specialist of this kind" goes to the agent whose profile
 * matches, decided in the workflow; when several match equally well, the run's `routingStrategy`
 * picks among them and the decision is recorded with its figures; when none matches, the asking
 * agent's model picks one from the profiles (the `routeSpecialist` activity, recorded) or says none fits.
 */
import { isCancellation } from '@temporalio/workflow';
import {
  matchingSpecialists,
  readSpecialistRequest,
  type SpecialistRequest,
  specialists,
} from '../../src/common/delegation';
import { APPROVAL_EVENT_MEMO } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import type { ToolCall } from '../../src/common/model';
import {
  pickSpecialist,
  type RoutingDecision,
  routingKind,
  RoutingStrategy,
  type SpecialistFigures,
} from '../../src/common/routing';
import type { AgentSpec } from '../../src/common/team';
import type { ChainRun } from './step';

/** Where a routing request goes: a specialist, or the answer the model gets instead. */
export type Routed = { kind: 'to'; to: string; request: SpecialistRequest } | { kind: 'answer'; answer: string };

export async function routeToSpecialist(run: ChainRun, agent: AgentSpec, call: ToolCall): Promise<Routed> {
  const { chain, effects } = run;
  const request = readSpecialistRequest(call);
  if (typeof request === 'string') return { kind: 'answer', answer: `Error: ${request}` };
  const matched = matchingSpecialists(chain.state.team, agent.id, request);
  if (matched.length > 0) return { kind: 'to', to: await pick(run, agent, request, matched), request };
  const candidates = specialists(chain.state.team, agent.id);
  if (candidates.length === 0)
    return {
      kind: 'answer',
      answer: 'No specialist is available: no other agent of the team has a profile. Answer yourself.',
    };
  const routed = await effects.routeSpecialist(
    {
      agentId: agent.id,
      model: agent.model,
      request: {
        specialistType: request.specialistType,
        task: request.task,
        requiredCapabilities: request.requiredCapabilities,
      },
      specialists: candidates.map((a) => ({ id: a.id, ...a.profile! })),
    },
    chain.state.options,
  );
  chain.apply({ type: 'model_used', usage: routed.usage });
  run.economy?.charge(chain.state, effects, routed.usage);
  if (routed.agent) return { kind: 'to', to: routed.agent, request };
  return {
    kind: 'answer',
    answer: `No specialist fits "${request.specialistType}": ${routed.reason ?? 'none of the profiles matches'}. Answer yourself or ask for another kind of specialist.`,
  };
}

/** The specialist among those that match equally well: the run's strategy picks, and the decision goes on the record. */
async function pick(run: ChainRun, agent: AgentSpec, request: SpecialistRequest, matched: string[]): Promise<string> {
  const { chain, effects } = run;
  const strategy = chain.state.options.routingStrategy ?? RoutingStrategy.BEST_MATCH;
  if (matched.length === 1 || strategy === RoutingStrategy.BEST_MATCH || !effects.patched(Patches.ROUTING_STRATEGIES))
    return matched[0]!;
  const kind = routingKind(request.specialistType);
  let figures: SpecialistFigures | undefined;
  let unavailable: string | undefined;
  if (strategy !== RoutingStrategy.ROUND_ROBIN) {
    try {
      if (!effects.specialistFigures) unavailable = 'this workflow reads no figures';
      else
        figures = await effects.specialistFigures(
          { agentId: agent.id, candidates: matched, recent: strategy === RoutingStrategy.SUCCESS_RATE },
          chain.state.options,
        );
    } catch (err) {
      if (isCancellation(err)) throw err;
      // Without figures the chain goes on with the first match, and says why.
      unavailable = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    }
  }
  const root = chain.state.parent?.rootWorkflowId ?? effects.workflowId;
  const turn = chain.state.routingCounts?.[kind] ?? 0;
  const picked = pickSpecialist(strategy, matched, {
    root,
    kind,
    turn,
    ...(figures ? { figures } : {}),
    ...(unavailable ? { unavailable } : {}),
  });
  const decision: RoutingDecision = {
    type: 'routing_decided',
    from: agent.id,
    specialistType: request.specialistType,
    strategy,
    candidates: matched,
    ...picked,
  };
  chain.apply({ type: 'routed', kind });
  effects.publish({ [APPROVAL_EVENT_MEMO]: decision });
  return picked.chosen;
}
