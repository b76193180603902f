import { randomUUID } from 'node:crypto';
import { ApplicationFailure, type Client, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { handoffRun } from '../../workflows';
import { validateRunInput } from '../common/defaults';
import { errorFromFailure } from '../common/errors';
import {
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  chainQuery,
  DEFAULT_TASK_QUEUE,
  statusQuery,
  WorkflowType,
} from '../common/messages';
import { BatonStatus, type HandoffRecord, type HandoffRunResult, type RunOptions, type RunStatus } from '../common/types';

/** Options of {@link Baton}. */
export interface BatonOptions {
  /** A connected Temporal client. */
  client: Client;
  /** @default "baton" */
  taskQueue?: string;
}

/** Options of one run: the workflow's {@link RunOptions} plus how to start it. */
export interface StartOptions extends RunOptions {
  /** @default `baton-<agent>-<uuid>` */
  workflowId?: string;
}

/** What {@link Baton.run} returns. */
export interface RunResult extends HandoffRunResult {
  workflowId: string;
}

/** A started chain. */
export class BatonRun {
  constructor(readonly handle: WorkflowHandle<typeof handoffRun>) {}

  get workflowId(): string {
    return this.handle.workflowId;
  }

  /** Wait for the answer; a failed run rethrows baton's typed error (`MaxHandoffsExceededError`, …). */
  async result(): Promise<RunResult> {
    try {
      return { ...(await this.handle.result()), workflowId: this.workflowId };
    } catch (err) {
      throw toBatonError(err);
    }
  }

  /** The handoffs so far (a query). */
  chain(): Promise<HandoffRecord[]> {
    return this.handle.query(chainQuery);
  }

  /** Where the run is (a query). */
  status(): Promise<RunStatus> {
    return this.handle.query(statusQuery);
  }
}

/**
 * Start and follow chains from your own service.
 * @example
 * const baton = new Baton({ client: new Client({ connection: await Connection.connect() }) });
 * const { output, handoffChain } = await baton.run('triage', 'I want a refund for order 42');
 */
export class Baton {
  readonly client: Client;
  readonly taskQueue: string;

  constructor(options: BatonOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  }

  /** Start a chain at `agent`; invalid input or options throw `InvalidRunInputError` before anything starts. */
  async start(agent: string, input: string, options: StartOptions = {}): Promise<BatonRun> {
    const { workflowId, ...runOptions } = options;
    const args = validateRunInput({ agent, input, options: runOptions });
    const handle = await this.client.workflow.start<typeof handoffRun>(WorkflowType.HANDOFF_RUN, {
      taskQueue: this.taskQueue,
      workflowId: workflowId ?? `baton-${agent}-${randomUUID()}`,
      args: [args],
      typedSearchAttributes: [
        { key: BatonAgent, value: agent },
        { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
        { key: BatonHandoffs, value: 0 },
      ],
    });
    return new BatonRun(handle);
  }

  /** Run a chain to its answer. */
  async run(agent: string, input: string, options: StartOptions = {}): Promise<RunResult> {
    return (await this.start(agent, input, options)).result();
  }

  /** A chain started earlier, by this client or any other. */
  getRun(workflowId: string): BatonRun {
    return new BatonRun(this.client.workflow.getHandle<typeof handoffRun>(workflowId));
  }
}

/** baton's typed error for a failed run when there is one, else the error as it came. */
export function toBatonError(err: unknown): unknown {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure) {
    const typed = errorFromFailure(err.cause);
    if (typed) {
      (typed as { cause?: unknown }).cause = err;
      return typed;
    }
  }
  return err;
}
