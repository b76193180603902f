/**
 * The `experiment` workflow: an experiment's definition, on the record for as long as it runs.
 * Clients read its state from the memo (no worker needed) to give each new chain its variant;
 * `stopExperiment` sends every new chain to one variant from then on, and ends the workflow.
 */
import { ApplicationFailure } from '@temporalio/common';
import { condition, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { experimentProblems, type ExperimentDefinition, type ExperimentState } from '../src/common/experiment';
import { isRecord } from '../src/common/check';
import { clipText } from '../src/common/limits';
import { EXPERIMENT_MEMO, stopExperimentUpdate } from '../src/common/messages';

/** An experiment until it is stopped; its result is its final state. */
export async function experiment(definition: ExperimentDefinition): Promise<ExperimentState> {
  const problems = experimentProblems(definition);
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(`Invalid experiment: ${problems.join('; ')}`, 'InvalidExperimentError', {
      problems,
    });
  let state: ExperimentState = {
    definition,
    startedAt: new Date(workflowInfo().startTime).toISOString(),
    status: 'running',
  };
  upsertMemo({ [EXPERIMENT_MEMO]: state });
  setHandler(
    stopExperimentUpdate,
    (stop) => {
      state = {
        ...state,
        status: 'stopped',
        winner: stop.winner,
        stoppedAt: new Date(Date.now()).toISOString(),
        ...(stop.by ? { stoppedBy: clipText(stop.by, 256) } : {}),
        ...(stop.reason ? { reason: clipText(stop.reason, 1024) } : {}),
      };
      upsertMemo({ [EXPERIMENT_MEMO]: state });
      return state;
    },
    { validator: (stop) => validateStop(state, stop) },
  );
  await condition(() => state.status === 'stopped');
  return state;
}

function validateStop(state: ExperimentState, stop: unknown): void {
  if (state.status === 'stopped')
    throw new Error(`experiment ${state.definition.id} is stopped already (winner ${state.winner})`);
  const names = state.definition.variants.map((v) => v.name);
  if (!isRecord(stop) || typeof stop.winner !== 'string' || !names.includes(stop.winner)) {
    throw new Error(
      `"winner" must be one of the experiment's variants (${names.join(', ')}), got ${JSON.stringify(isRecord(stop) ? stop.winner : stop)}`,
    );
  }
  for (const k of ['by', 'reason'] as const)
    if (stop[k] !== undefined && typeof stop[k] !== 'string') throw new Error(`"${k}" must be a text`);
}
