import type { z } from 'zod';
import type { Team } from '../src/agents/team';
import { extractHandoff } from '../src/common/handoff';
import type { ModelResponse, ToolCall } from '../src/common/model';
import type { TeamSpec } from '../src/common/team';

/**
 * A final answer checked against the agent's output type: the parsed value, or what is wrong with
 * it in words the model can act on. JSON in a Markdown code fence is accepted.
 */
export function checkAnswer(content: string | null, outputType: z.ZodType): NonNullable<ModelResponse['output']> {
  const text = (content ?? '').trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : text);
  } catch {
    return {
      error: `it is not JSON (${text === '' ? 'the answer was empty' : `it starts with ${JSON.stringify(text.slice(0, 40))}`})`,
    };
  }
  const parsed = outputType.safeParse(value);
  if (parsed.success) return { value: parsed.data };
  return { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}

/** What the model is told when it condenses a conversation for a handoff. */
export const SUMMARY_INSTRUCTIONS =
  'Condense the conversation below for the agent who takes the work over. Keep every fact, decision, number, id and open question; leave out pleasantries. Answer with the summary only.';

/**
 * The typed input of each handoff call whose target declares an `inputType`, checked with its zod
 * schema; `undefined` when no call of the answer needs it.
 */
export function checkHandoffInputs(
  team: Team,
  spec: TeamSpec,
  agentId: string,
  calls: ToolCall[],
): ModelResponse['handoffInputs'] {
  const agent = spec.agents[agentId];
  let any = false;
  const checked = calls.map((call) => {
    const h = agent ? extractHandoff(call, agentId, agent) : null;
    const inputType = h && typeof h !== 'string' ? team.handoffDeclaration(agentId, h.to)?.inputType : undefined;
    if (!inputType || !h || typeof h === 'string') return null;
    any = true;
    const parsed = inputType.safeParse(h.input);
    return parsed.success
      ? { value: parsed.data }
      : { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
  });
  return any ? checked : undefined;
}
