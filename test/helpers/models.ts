import type { CallModelInput } from '../../src/common/types';
import type { ModelProviders } from '../../src/models/provider';
import { ScriptedProvider } from '../../src/models/scripted';

/** The scripted provider, recording every request it answers (the worker runs in the test's process). */
export function recordingScripted(): { calls: CallModelInput[]; providers: ModelProviders } {
  const calls: CallModelInput[] = [];
  const scripted = new ScriptedProvider();
  return {
    calls,
    providers: {
      scripted: {
        call: (input, context) => {
          calls.push(structuredClone(input));
          return scripted.call(input, context);
        },
      },
    },
  };
}

/**
 * The scripted provider, except that a tool call scripted with arguments `{ $raw: text }` is made
 * with `text` as its arguments, as written (a model that writes invalid JSON).
 */
export function rawArgumentsScripted(): ModelProviders {
  const scripted = new ScriptedProvider();
  return {
    scripted: {
      call: async (input, context) => {
        const response = await scripted.call(input, context);
        const raw = (text: string) => {
          const value = JSON.parse(text) as { $raw?: unknown };
          return typeof value.$raw === 'string' ? value.$raw : text;
        };
        return { ...response, toolCalls: response.toolCalls.map((c) => ({ ...c, arguments: raw(c.arguments) })) };
      },
    },
  };
}
