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
