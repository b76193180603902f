import type { ModelCallContext, ModelProvider } from '../src/models/provider';
import type { RouteSpecialistInput, RouteSpecialistResult } from '../src/common/model';

const ROUTER_INSTRUCTIONS =
  'You route a task to the one specialist best able to do it. Answer with JSON only: {"agent": "<id>"} for the specialist, ' +
  'or {"none": "<why>"} when none of them fits.';

/**
 * Pick a specialist for a routing request no profile matched, with the asking agent's model. An
 * answer that names no listed specialist counts as "none fits", with the model's words as the reason.
 */
export async function routeSpecialist(
  provider: ModelProvider,
  input: RouteSpecialistInput,
  context: ModelCallContext,
): Promise<RouteSpecialistResult> {
  const listing = input.specialists
    .map(
      (s) =>
        `- ${s.id}: ${s.specialization}; can: ${s.capabilities.join(', ') || '(nothing listed)'}${s.description ? `; ${s.description}` : ''}${s.examples?.length ? `; e.g. ${s.examples.join(' / ')}` : ''}`,
    )
    .join('\n');
  const { request } = input;
  const response = await provider.call(
    {
      agentId: input.agentId,
      model: input.model,
      purpose: 'routing',
      callIndex: 0,
      tools: [],
      messages: [
        { role: 'system', content: ROUTER_INSTRUCTIONS },
        {
          role: 'user',
          content: `Task: ${request.task}\nKind of specialist asked for: ${request.specialistType}\nCapabilities needed: ${request.requiredCapabilities.join(', ') || '(none given)'}\nSpecialists:\n${listing}`,
        },
      ],
    },
    context,
  );
  const text = (response.content ?? '').trim();
  const ids = input.specialists.map((s) => s.id);
  let answer: { agent?: unknown; none?: unknown } = {};
  try {
    answer = JSON.parse(/\{[\s\S]*\}/.exec(text)?.[0] ?? text) as typeof answer;
  } catch {
    // Not JSON: a bare id still counts.
    if (ids.includes(text)) answer = { agent: text };
  }
  if (typeof answer.agent === 'string' && ids.includes(answer.agent))
    return { agent: answer.agent, usage: response.usage };
  const reason =
    typeof answer.none === 'string'
      ? answer.none
      : `the router named no listed specialist (${text.slice(0, 120) || 'an empty answer'})`;
  return { reason, usage: response.usage };
}
