/**
 * How long a workflow task of a chain or a conversation may run before Temporal hands it to another
 * worker: the time a chain waits when its worker dies inside one. Temporal's default is 10 s; a
 * baton task takes milliseconds (a replay of a long history after a cache eviction, tens), so 5 s
 * keeps a wide margin for a loaded worker and halves that wait. Every start baton makes sets it (a
 * chain, a conversation, a specialist, a replay, an evaluation's chain), and a continue-as-new
 * keeps its run's. What this costs: a local activity running longer than the task's timeout keeps
 * its task alive with a new one at 80% of it, every 4 s instead of 8 (see bench/README.md).
 *
 * Workflow-safe: no I/O.
 */
export const WORKFLOW_TASK_TIMEOUT = '5 seconds';

/** The option every chain and conversation start carries. */
export const workflowTaskTimeoutOption = { workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT } as const;
