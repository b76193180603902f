/**
 * The start request of a chain (`baton.start`): its options, its id (the one given, else a new one
 * under its tenant's prefix), its checked input, its variant when it starts in an experiment, its
 * id policies, priority, who started it, and the search attributes it begins with.
 */
import { randomUUID } from 'node:crypto';
import { runStartOptions } from './runStart';
import type { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowStartOptions } from '@temporalio/client';
import { InvalidRunInputError } from '../common/errors';
import { validateRunInput } from '../common/input';
import type { HandoffRunInput } from '../common/run';
import { TENANT_ID, tenantIdProblem, tenantPrefix } from '../common/tenant';
import { type RunContext, type RunOptions } from '../common/types';
import { deadlinePassed } from './deadline';
import { type Experiments, inVariant } from './experiments';
import { startedByMemo } from './requests';

/** Options of one run: the workflow's {@link RunOptions} plus how to start it. */
export interface StartOptions extends RunOptions {
  /** @default `baton-<agent>-<uuid>` */
  workflowId?: string;
  /**
   * Application data the run's tools receive as `context.context`: plain JSON (at most 64 KB),
   * recorded in history. Never secrets: give tools their clients and keys where the worker builds them.
   */
  context?: RunContext;
  /**
   * Whether a chain may start under the id of a chain that has closed (Temporal's policy, passed
   * to `client.workflow.start` as it is): e.g. `REJECT_DUPLICATE` so an id names one chain for as
   * long as the namespace keeps its history.
   * @default "ALLOW_DUPLICATE" (Temporal's default)
   */
  workflowIdReusePolicy?: WorkflowIdReusePolicy;
  /**
   * What starting under the id of a running chain does (Temporal's policy, passed to
   * `client.workflow.start` as it is): `FAIL` throws `WorkflowExecutionAlreadyStartedError`,
   * `USE_EXISTING` returns the running chain, `TERMINATE_EXISTING` ends it and starts anew.
   * @default "FAIL" (Temporal's default)
   */
  workflowIdConflictPolicy?: WorkflowIdConflictPolicy;
  /**
   * Who asked for the chain (a person's or a service's name, at most 200 characters): shown to the
   * people who decide its approvals, beside its request. Recorded in the chain's memo (`batonStartedBy`).
   * @example await baton.start('triage', request, { startedBy: 'support-inbox' })
   */
  startedBy?: string;
  /**
   * Start the chain in this experiment (`baton.experiments.start`): it gets its variant by the
   * experiment's key, runs on the variant's task queue (or deployment version) with its run options
   * over these, and carries the assignment in its memo (`batonVariant`) and `BatonVariant`.
   */
  experiment?: string;
}

/**
 * The start of a chain at `agent` with `input`, as `client.workflow.start` takes it (in an
 * experiment, on its variant); invalid input or options throw `InvalidRunInputError` before anything starts.
 */
export async function chainStart(
  experiments: Experiments,
  taskQueue: string,
  agent: string,
  input: string,
  options: StartOptions,
): Promise<WorkflowStartOptions & { args: [HandoffRunInput] }> {
  const {
    workflowId: givenId,
    context,
    workflowIdReusePolicy,
    workflowIdConflictPolicy,
    startedBy,
    experiment,
    ...given
  } = options;
  const tenant = given.tenant;
  const workflowId =
    givenId ??
    `${tenant !== undefined && TENANT_ID.test(tenant) ? tenantPrefix(tenant) : ''}baton-${agent}-${randomUUID()}`;
  // In an experiment, the variant's run options go over the start's.
  const variant =
    experiment !== undefined
      ? await experiments.variantStart(experiment, workflowId, context, given, taskQueue)
      : undefined;
  const runOptions = variant?.options ?? given;
  const args = validateRunInput({ agent, input, options: runOptions, ...(context !== undefined ? { context } : {}) });
  const passed = deadlinePassed(runOptions.deadline, Date.now());
  if (passed) throw new InvalidRunInputError([passed]);
  const misplaced = runOptions.tenant !== undefined ? tenantIdProblem(runOptions.tenant, workflowId) : undefined;
  if (misplaced) throw new InvalidRunInputError([`"workflowId": ${misplaced}`]);
  const start = chainStartOptions(
    {
      taskQueue,
      workflowId,
      agent,
      runOptions,
      workflowIdReusePolicy,
      workflowIdConflictPolicy,
      startedBy,
    },
    args,
  );
  return variant ? inVariant(start, variant) : start;
}

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
    ...startedByMemo(s.startedBy),
    ...runStartOptions({ agent: s.agent, handoffs: 0, priority: s.runOptions.priority, tenant: s.runOptions.tenant }),
  };
}
