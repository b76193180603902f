/**
 * How long a workflow task of a chain or a conversation may run before Temporal hands it to another
 * worker: the time a chain waits when its worker dies inside one. Temporal's default is 10 s; a
 * baton task takes milliseconds (a replay of a long history after a cache eviction, tens). What
 * sets the floor is a local activity: past 80% of the timeout its worker keeps the task alive with a
 * completion that must reach the server in the last 20%, 1 s at 5 s and 1.6 s at 8, while a loaded
 * server takes its time. 8 s keeps a crash's wait well inside the recovery target (≤ 11 s). Every
 * start baton makes sets it (a chain, a conversation, a specialist, a replay, an evaluation's
 * chain), and a continue-as-new keeps its run's. What this costs: a local activity past 6.4 s
 * costs one more workflow task every 6.4 s (see bench/README.md).
 *
 * Workflow-safe: no I/O.
 */
export const WORKFLOW_TASK_TIMEOUT = '8 seconds';

/** The option every chain and conversation start carries. */
export const workflowTaskTimeoutOption = { workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT } as const;
