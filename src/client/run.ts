/**
 * A started chain as the client holds it ({@link BatonRun}): its result as baton's typed errors,
 * its events and streamed text, and the queries of its handoffs, status and waiting approvals.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { handoffRun } from '../../workflows/handoffRun';
import { chainQuery, pendingApprovalsQuery, statusQuery } from '../common/messages';
import type { HandoffRecord, HandoffRunResult, PendingApproval, RunStatus } from '../common/types';
import { streamsFromEnv } from '../streams/env';
import { streamRun, type RunStreamItem, type RunStreamOptions } from './follow';
import type { StreamTransport } from '../streams/types';
import { toBatonError } from './decide';
import { runEvents, type RunEventsOptions } from './events';
import type { RunEvent } from './runEvent';

/** What `Baton.run` returns: `Output` is a string, or the type of the final agent's `outputType`. */
export interface RunResult<Output = string> extends HandoffRunResult<Output> {
  workflowId: string;
}

/** A started chain. */
export class BatonRun<Output = string> {
  /**
   * @param handle The Temporal handle of the chain's workflow, for anything baton does not wrap.
   * @param streams Where its model text is read as it forms. @default the environment's (see `streamsFromEnv`)
   */
  constructor(
    readonly handle: WorkflowHandle<typeof handoffRun>,
    private readonly streams: StreamTransport = streamsFromEnv(),
  ) {}

  get workflowId(): string {
    return this.handle.workflowId;
  }

  /** Wait for the answer; a failed run rethrows baton's typed error (`MaxHandoffsExceededError`, …). */
  async result(): Promise<RunResult<Output>> {
    try {
      return { ...((await this.handle.result()) as HandoffRunResult<Output>), workflowId: this.workflowId };
    } catch (err) {
      throw toBatonError(err);
    }
  }

  /**
   * What the run does, as it happens: model and tool calls, handoffs, approvals, delegations with
   * their specialists' work, and the end, read from history by long-polling (no query loop).
   * Follows continue-as-new; ends with the run.
   * @example for await (const e of run.events()) if (e.kind === 'handoff') console.log(e.handoff.to);
   */
  events(options?: RunEventsOptions): AsyncGenerator<RunEvent> {
    // A run this client started is followed from its first run; one looked up, from its latest.
    const first = (this.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
    return runEvents(this.handle.client, this.workflowId, first, options);
  }

  /**
   * The run's events (as {@link BatonRun.events}) with the text of its model calls as it forms, its
   * specialists' included: `text` pieces at their offsets, and `text_reset` when a call's text is to
   * be dropped (a retried call, or text that differs from the answer history records, which follows).
   * Applying them in order (`applyChange`) ends with each call's recorded answer. Every item has a
   * `position` to resume after (`{after}`); without it, the chain is followed from its first run,
   * whether this client started it or looked it up. Ends with the run.
   * @example for await (const x of run.stream()) if (x.kind === 'text') process.stdout.write(x.text);
   */
  stream(options?: RunStreamOptions & { signal?: AbortSignal }): AsyncGenerator<RunStreamItem> {
    const first = (this.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
    return streamRun(this.handle.client, this.streams, this.workflowId, first, options);
  }

  /** The handoffs so far (a query). */
  chain(): Promise<HandoffRecord[]> {
    return this.handle.query(chainQuery);
  }

  /** Where the run is (a query). */
  status(): Promise<RunStatus> {
    return this.handle.query(statusQuery);
  }

  /**
   * The run's handoffs waiting for a decision (a query). The workflow's own values: a tool call's
   * sensitive arguments are not redacted here, as they are by `baton.pending()` and `events()`.
   */
  pendingApprovals(): Promise<PendingApproval[]> {
    return this.handle.query(pendingApprovalsQuery);
  }
}
