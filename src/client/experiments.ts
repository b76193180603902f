/**
 * Experiments from a client: start one (an `experiment` workflow holding its definition), read it,
 * stop it, and give a new chain its variant — the variant's task queue or worker deployment
 * version, its run options, and the assignment on the chain's record (the `batonVariant` memo and
 * the `BatonVariant` search attribute).
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowStartOptions,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { VersioningOverride } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { UserError } from '../common/errors';
import {
  assignVariant,
  experimentProblems,
  type ExperimentDefinition,
  type ExperimentState,
  type ExperimentVariant,
  type StopExperiment,
  variantAttributeValue,
  type VariantAssignment,
} from '../common/experiment';
import { BatonVariant, EXPERIMENT_MEMO, stopExperimentUpdate, VARIANT_MEMO, WorkflowType } from '../common/messages';
import type { RunOptions } from '../common/options';
import type { RunContext } from '../common/team';
import { whileWorkflowTaskFails } from './taskFailing';

/** An experiment that cannot be started, stopped or used: what is wrong and what would be valid. */
export class ExperimentError extends UserError<{ experiment: string; problems: string[] }> {
  declare readonly experiment: string;
  declare readonly problems: string[];
  constructor(experiment: string, problems: string[]) {
    super(`Experiment ${experiment}: ${problems.join('; ')}`, { experiment, problems });
  }
}

/** The workflow id of experiment `id`. */
export function experimentWorkflowId(id: string): string {
  return `baton-experiment-${id}`;
}

/** How a chain starts in its variant: where, with which options, and what its record says. */
export interface VariantStart {
  assignment: VariantAssignment;
  variant: ExperimentVariant;
  taskQueue: string;
  options: RunOptions;
  memo: Record<string, unknown>;
  searchAttribute: { key: typeof BatonVariant; value: string };
  versioningOverride?: VersioningOverride;
}

/** A client's view of experiments; definitions read once per `cacheMs`, so a stop reaches every client within it. */
export class Experiments {
  private readonly cache = new Map<string, { state: ExperimentState; at: number }>();

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** How long a read definition is used before it is read again. @default 5000 */
    private readonly cacheMs = 5_000,
  ) {}

  /** Start an experiment; its id must be new. */
  async start(definition: ExperimentDefinition): Promise<ExperimentState> {
    const problems = experimentProblems(definition);
    if (problems.length > 0)
      throw new ExperimentError(String((definition as { id?: unknown })?.id ?? '(no id)'), problems);
    const state: ExperimentState = { definition, startedAt: new Date().toISOString(), status: 'running' };
    try {
      await this.client.workflow.start(WorkflowType.EXPERIMENT, {
        workflowId: experimentWorkflowId(definition.id),
        taskQueue: this.taskQueue,
        args: [definition],
        memo: { [EXPERIMENT_MEMO]: state },
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new ExperimentError(definition.id, [
          'an experiment with this id exists (running or ended): give the new one another id',
        ]);
      throw err;
    }
    this.cache.set(definition.id, { state, at: Date.now() });
    return state;
  }

  /** An experiment's state, read from its workflow's memo. */
  async get(id: string): Promise<ExperimentState> {
    let memo: Record<string, unknown> | undefined;
    try {
      memo = (await this.client.workflow.getHandle(experimentWorkflowId(id)).describe()).memo;
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError')
        throw new ExperimentError(id, ['no such experiment: start it first (baton experiment start)']);
      throw err;
    }
    const state = memo?.[EXPERIMENT_MEMO] as ExperimentState | undefined;
    if (!state) throw new ExperimentError(id, [`${experimentWorkflowId(id)} is not an experiment`]);
    this.cache.set(id, { state, at: Date.now() });
    return state;
  }

  /** Stop an experiment: from now on every new chain goes to `winner`. */
  async stop(id: string, stop: StopExperiment): Promise<ExperimentState> {
    const current = await this.get(id);
    if (current.status === 'stopped')
      throw new ExperimentError(id, [`it is stopped already (winner ${current.winner}, ${current.stoppedAt})`]);
    const handle = this.client.workflow.getHandle(experimentWorkflowId(id));
    // The stop is the experiment workflow's to record: without a worker it would wait for one.
    const { taskQueue } = await handle.describe();
    if (!(await pollersWithin(this.client, taskQueue, NO_WORKER_GRACE_MS)))
      throw new ExperimentError(id, [
        `no worker polls task queue "${taskQueue}", where its workflow runs: start a baton worker there (baton worker --task-queue ${taskQueue}), then stop it`,
      ]);
    try {
      const state = await whileWorkflowTaskFails(() => handle.executeUpdate(stopExperimentUpdate, { args: [stop] }));
      this.cache.set(id, { state, at: Date.now() });
      return state;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw new ExperimentError(id, [err.cause?.message ?? err.message]);
      throw err;
    }
  }

  /** How a chain with workflow id `workflowId` and `context` starts in experiment `id`, over the start's `options` and task queue. */
  async variantStart(
    id: string,
    workflowId: string,
    context: RunContext | undefined,
    options: RunOptions,
    taskQueue: string,
  ): Promise<VariantStart> {
    const cached = this.cache.get(id);
    const state = cached && Date.now() - cached.at < this.cacheMs ? cached.state : await this.get(id);
    const assignment = assignVariant(state, workflowId, context);
    const variant = state.definition.variants.find((v) => v.name === assignment.variant)!;
    return {
      assignment,
      variant,
      taskQueue: variant.taskQueue ?? taskQueue,
      options: { ...options, ...variant.options },
      memo: { [VARIANT_MEMO]: assignment },
      searchAttribute: { key: BatonVariant, value: variantAttributeValue(assignment.experiment, assignment.variant) },
      ...(variant.deployment
        ? {
            versioningOverride: {
              pinnedTo: { deploymentName: variant.deployment.name, buildId: variant.deployment.buildId },
            },
          }
        : {}),
    };
  }
}

/** How long a stop waits for a worker to poll the experiment's task queue (one that just started) before saying there is none. */
const NO_WORKER_GRACE_MS = 3_000;

/** Whether a worker polls `taskQueue` now or within `graceMs`. */
async function pollersWithin(client: Client, taskQueue: string, graceMs: number): Promise<boolean> {
  for (const deadline = Date.now() + graceMs; ;) {
    if (await hasWorkflowPollers(client, taskQueue)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether a worker polled `taskQueue` for workflow tasks in the last 90 seconds. */
async function hasWorkflowPollers(client: Client, taskQueue: string): Promise<boolean> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (pollers ?? []).some((p) => now - (optionalTsToMs(p.lastAccessTime) ?? 0) <= 90_000);
}

/** The start options of a variant, over `start` (a chain's or conversation's start). */
export function inVariant<S extends Pick<WorkflowStartOptions, 'taskQueue' | 'memo' | 'typedSearchAttributes'>>(
  start: S,
  v: VariantStart,
): S {
  const attributes = Array.isArray(start.typedSearchAttributes) ? start.typedSearchAttributes : [];
  return {
    ...start,
    taskQueue: v.taskQueue,
    memo: { ...start.memo, ...v.memo },
    typedSearchAttributes: [...attributes, v.searchAttribute],
    ...(v.versioningOverride ? { versioningOverride: v.versioningOverride } : {}),
  };
}
