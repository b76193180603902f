/**
 * A workflow interceptor for replay workers: reports every memo upsert the workflow code issues, so
 * a test can learn what a held workflow task is about to record (e.g. the id of a handoff that
 * will wait for approval) before letting a real worker run it.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface MemoProbe extends Sinks {
  probe: { memo(fields: Record<string, Uint8Array>): void };
}

const { probe } = proxySinks<MemoProbe>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const output = next(input);
        for (const command of output.commands) {
          const fields = command.modifyWorkflowProperties?.upsertedMemo?.fields;
          if (fields)
            probe.memo(
              Object.fromEntries(
                Object.entries(fields).map(([key, payload]) => [key, payload.data ?? new Uint8Array()]),
              ),
            );
        }
        return output;
      },
    },
  ],
});
