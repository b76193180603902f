import type { z } from 'zod';
import type { ModelResponse } from '../src/common/model';

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
    return { error: `it is not JSON (${text === '' ? 'the answer was empty' : `it starts with ${JSON.stringify(text.slice(0, 40))}`})` };
  }
  const parsed = outputType.safeParse(value);
  if (parsed.success) return { value: parsed.data };
  return { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
