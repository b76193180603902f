/**
 * The LLM judge: a model scores a case's answer against a rubric, from 0 to 1, with a reason.
 * Runs as the `judgeCase` activity, so its call is recorded in the case's history and retried
 * like any model call.
 */
import type { JudgeInput, JudgeVerdict } from '../common/eval/activities';
import type { ModelCallContext, ModelProvider } from '../models/provider';

const JUDGE_INSTRUCTIONS =
  'You grade the answer an AI assistant gave to a request, against a rubric. Answer with JSON only: ' +
  '{"score": <a number from 0 (fails the rubric) to 1 (meets it fully)>, "reason": "<one sentence>"}.';

/** Ask `provider` to score the answer. An answer that is not the JSON asked for scores 0, saying so. */
export async function judge(
  provider: ModelProvider,
  input: JudgeInput,
  context: ModelCallContext,
): Promise<JudgeVerdict> {
  const response = await provider.call(
    {
      agentId: 'eval-judge',
      model: input.model,
      callIndex: 0,
      tools: [],
      messages: [
        { role: 'system', content: JUDGE_INSTRUCTIONS },
        {
          role: 'user',
          content: `Rubric: ${input.rubric}\n\nRequest: ${input.request}\n\nAnswer: ${input.answer}${input.reference !== undefined ? `\n\nThe answer recorded before, for reference: ${input.reference}` : ''}`,
        },
      ],
    },
    context,
  );
  const text = (response.content ?? '').trim();
  try {
    const parsed = JSON.parse(/\{[\s\S]*\}/.exec(text)?.[0] ?? text) as { score?: unknown; reason?: unknown };
    const score =
      typeof parsed.score === 'number' && Number.isFinite(parsed.score)
        ? Math.min(1, Math.max(0, parsed.score))
        : undefined;
    if (score !== undefined)
      return { score, reason: typeof parsed.reason === 'string' ? parsed.reason : '', usage: response.usage };
  } catch {
    // Falls through: not JSON.
  }
  return {
    score: 0,
    reason: `the judge did not answer with {"score", "reason"}: ${text.slice(0, 160) || 'an empty answer'}`,
    usage: response.usage,
  };
}
