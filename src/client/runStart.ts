/**
 * What every run the client starts carries besides its id, input and policies: its priority,
 * baton's workflow task timeout, and the search attributes a new run is listed by (its agent,
 * `running`, its handoffs so far, its tenant). A chain, a conversation and the runs their
 * replays start take it from here, so none can miss one.
 */
import { BatonAgent, BatonHandoffs, BatonStatusAttribute } from '../common/messages';
import { priorityOption, type RunPriority } from '../common/priority';
import { BatonStatus } from '../common/run';
import { workflowTaskTimeoutOption } from '../common/taskTimeout';
import { tenantSearchAttribute } from '../common/tenant';

/** The options of a new run at `agent`, `handoffs` into its chain, with `priority` and `tenant` when it has them. */
export function runStartOptions(run: { agent: string; handoffs: number; priority?: RunPriority; tenant?: string }) {
  return {
    ...priorityOption(run.priority),
    ...workflowTaskTimeoutOption,
    typedSearchAttributes: [
      { key: BatonAgent, value: run.agent },
      { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
      { key: BatonHandoffs, value: run.handoffs },
      ...tenantSearchAttribute(run.tenant),
    ],
  };
}
