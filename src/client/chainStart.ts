/** The start request of a chain (`baton.start`): its id policies, priority, who started it, and the search attributes it begins with. */
import type { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowStartOptions } from '@temporalio/client';
import { BatonAgent, BatonHandoffs, BatonStatusAttribute } from '../common/messages';
import { priorityOption } from '../common/priority';
import type { HandoffRunInput } from '../common/run';
import { tenantSearchAttribute } from '../common/tenant';
import { BatonStatus, type RunOptions } from '../common/types';
import { startedByMemo } from './requests';

/** What a chain's start is made of besides its input. */
export interface ChainStart {
  taskQueue: string;
  workflowId: string;
  agent: string;
  runOptions: RunOptions;
  workflowIdReusePolicy?: WorkflowIdReusePolicy;
  workflowIdConflictPolicy?: WorkflowIdConflictPolicy;
  startedBy?: unknown;
}

/** The options `client.workflow.start` takes for a chain of input `args`. */
export function chainStartOptions(
  s: ChainStart,
  args: HandoffRunInput,
): WorkflowStartOptions & { args: [HandoffRunInput] } {
  return {
    taskQueue: s.taskQueue,
    workflowId: s.workflowId,
    args: [args],
    ...(s.workflowIdReusePolicy !== undefined ? { workflowIdReusePolicy: s.workflowIdReusePolicy } : {}),
    ...(s.workflowIdConflictPolicy !== undefined ? { workflowIdConflictPolicy: s.workflowIdConflictPolicy } : {}),
    ...priorityOption(s.runOptions.priority),
    ...startedByMemo(s.startedBy),
    typedSearchAttributes: [
      { key: BatonAgent, value: s.agent },
      { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
      { key: BatonHandoffs, value: 0 },
      ...tenantSearchAttribute(s.runOptions.tenant),
    ],
  };
}
